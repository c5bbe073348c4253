"""Activation patching checked against patching written here with plain forward hooks on the unmodified model,
on inputs its own tokenizer.json prepares (transformers' PreTrainedTokenizerFast)."""

from __future__ import annotations

import pytest
import torch

from tests.adapters.hf_tiny import gpt2, llama, save_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.core.readout import ReadoutError
from tfdebug.sessions.patching import Patcher

transformers = pytest.importorskip("transformers")

TEXTS = {"gpt2": ("the cat sat on the mat", "the apple sat on the mat"),
         "llama": ("the cat sat on the mat", "the apple sat on the mat"),
         "pretrained": ("the cat is on the mat =", "the dog is on the mat =")}


@pytest.fixture(scope="module", params=list(TEXTS))
def case(request, tmp_path_factory):
    if request.param == "pretrained":
        from tfdebug.adapters.bundled import bundled_folder

        folder = bundled_folder("tiny-gpt2")
    else:
        folder = save_folder({"gpt2": gpt2, "llama": llama}[request.param](), tmp_path_factory.mktemp(request.param))
    clean, corrupt = TEXTS[request.param]
    return folder, Patcher(load_adapter(f"hf:{folder}"), {"prompt": clean}, {"prompt": corrupt}), clean, corrupt


def _difference_with(handle, model, ids, position, target, contrast) -> float:
    """logit(target) − logit(contrast) at `position` of `model` run on `ids` with the hook `handle` holds in place;
    the hook is removed after."""
    try:
        with torch.no_grad():
            logits = model(**ids).logits[0, position].double()
    finally:
        handle.remove()
    return float(logits[target] - logits[contrast])


def _reference_sweep(folder, clean, corrupt, position, target, contrast):
    """Rows × positions of logit differences, patched with hooks: row 0 the first block's input, row r the
    output of block r − 1; each position from the same position of the clean text."""
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    count = len(tokenizer(corrupt)["input_ids"])
    return _reference_aligned_sweep(folder, clean, corrupt, [(p, p) for p in range(count)], position, target,
                                    contrast)


def _predictions(patcher):
    """(clean prediction, corrupted prediction) at the last position (the clean pass's second choice when both
    predict the same token): the logit difference each sweep measures."""
    target = int(patcher.logits(patcher.clean)[0, -1].argmax())
    contrast = int(patcher.logits(patcher.corrupt)[0, -1].argmax())
    if contrast == target:
        contrast = int(patcher.logits(patcher.clean)[0, -1].argsort()[-2])
    return target, contrast


def test_a_residual_sweep_equals_patching_with_plain_hooks(case):
    folder, patcher, clean, corrupt = case
    target, contrast = _predictions(patcher)
    sweep = patcher.sweep(target, contrast, -1)
    assert sweep.forwards == len(patcher.rows) * patcher.count == len(sweep.rows) * len(sweep.positions)
    expected = _reference_sweep(folder, clean, corrupt, patcher.count - 1, target, contrast)
    assert len(expected) == len(sweep.patched)
    for got_row, want_row in zip(sweep.patched, expected):
        assert got_row == pytest.approx(want_row, rel=1e-5, abs=1e-5)
    # the last row at the last position carries everything; a position nothing reads yet carries nothing
    assert sweep.recovered[-1][-1] == pytest.approx(1.0, abs=1e-5)
    gap = sweep.clean - sweep.corrupt
    assert (sweep.recovered[0][0] == pytest.approx(0.0, abs=1e-5)) or abs(gap) < 1e-6


def test_patching_the_whole_first_row_gives_the_clean_logits_exactly(case):
    _, patcher, _, _ = case
    first = patcher.rows[0]
    patched = patcher.patch(first, patcher.clean.captures[first].tensor)
    assert torch.equal(patched, patcher.logits(patcher.clean))


def _reference_aligned_sweep(folder, clean, corrupt, pairs, position, target, contrast):
    """Rows × corrupted positions of logit differences for texts of different lengths, patched with hooks: the clean
    state at position c goes into corrupted position k for each (c, k) of `pairs`; NaN where k pairs with none."""
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder)).eval()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    blocks = model.transformer.h if hasattr(model, "transformer") else model.model.layers
    seen = {}
    hooks = [blocks[0].register_forward_pre_hook(
        lambda _m, args, kwargs: seen.__setitem__(0, (args[0] if args else kwargs["hidden_states"]).clone()),
        with_kwargs=True)]
    hooks += [block.register_forward_hook(
        lambda _m, _a, out, i=i: seen.__setitem__(i + 1, (out[0] if isinstance(out, tuple) else out).clone()))
        for i, block in enumerate(blocks)]
    with torch.no_grad():
        model(**tokenizer(clean, return_tensors="pt"))
    for h in hooks:
        h.remove()
    ids = tokenizer(corrupt, return_tensors="pt")
    source_of = {k: c for c, k in pairs}
    out = []
    for row in range(len(blocks) + 1):
        lds = []
        for k in range(ids["input_ids"].shape[1]):
            if k not in source_of:
                lds.append(float("nan"))
                continue

            def put(value, row=row, k=k):
                value = value.clone()
                value[:, k] = seen[row][:, source_of[k]]
                return value
            if row == 0:
                handle = blocks[0].register_forward_pre_hook(
                    lambda _m, args, kwargs: ((put(args[0]), *args[1:]), kwargs) if args else
                    (args, {**kwargs, "hidden_states": put(kwargs["hidden_states"])}), with_kwargs=True)
            else:
                handle = blocks[row - 1].register_forward_hook(
                    lambda _m, _a, out: (put(out[0]), *out[1:]) if isinstance(out, tuple) else put(out))
            lds.append(_difference_with(handle, model, ids, position, target, contrast))
        out.append(lds)
    return out


def _same(got, want) -> bool:
    return all((g != g and w != w) or g == pytest.approx(w, rel=1e-5, abs=1e-5) for g, w in zip(got, want, strict=True))


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_texts_of_different_lengths_pair_their_shared_start_and_the_rest_from_the_end(kind, tmp_path):
    folder = save_folder({"gpt2": gpt2, "llama": llama}[kind](), tmp_path)
    clean, corrupt = "the cat sat on the mat", "the big red apple sat on the mat"
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    a, b = (tokenizer(t)["input_ids"] for t in (clean, corrupt))
    n, m = len(a), len(b)
    shared = next(i for i in range(n) if a[i] != b[i])  # "the" (and a <s> before it)
    assert n < m and shared >= 1
    pairs = [(p, p) for p in range(shared)] + [(n - k, m - k) for k in range(n - shared, 0, -1)]
    patcher = Patcher(load_adapter(f"hf:{folder}"), {"prompt": clean}, {"prompt": corrupt})
    assert (patcher.clean_count, patcher.count) == (n, m)
    assert list(patcher.alignment.pairs) == pairs and not patcher.alignment.identity
    target, contrast = _predictions(patcher)
    sweep = patcher.sweep(target, contrast, -1)
    assert sweep.positions == list(range(m))
    expected = _reference_aligned_sweep(folder, clean, corrupt, pairs, m - 1, target, contrast)
    for got_row, want_row in zip(sweep.patched, expected, strict=True):
        assert _same(got_row, want_row)
    assert sum(v != v for v in sweep.patched[0]) == m - n  # the corrupted text's extra tokens: NaN
    assert sweep.recovered[-1][-1] == pytest.approx(1.0, abs=1e-5)
    assert sweep.to_dict()["alignment"]["pairs"] == [list(p) for p in pairs]
    # pairs given by hand: only the last token, from the clean text's first
    by_hand = Patcher(patcher.adapter, {"prompt": clean}, {"prompt": corrupt}, align=f"{n - 1}:-1,0:0")
    assert by_hand.alignment.pairs == ((0, 0), (n - 1, m - 1)) and by_hand.alignment.by_hand
    row = by_hand.sweep(target, contrast, -1, rows=[patcher.rows[-1]])
    assert row.patched[0][-1] == pytest.approx(expected[-1][-1], rel=1e-5, abs=1e-5)
    assert sum(v == v for v in row.patched[0]) == 2


def test_heads_of_texts_of_different_lengths_take_every_paired_position():
    adapter = load_adapter("tiny-gpt2")
    clean, corrupt = {"prompt": "the cat is on the mat ="}, {"prompt": "the big dog is on the mat ="}
    patcher = Patcher(adapter, clean, corrupt, batch=1)
    stage = patcher.head_stages[0]
    moves = patcher.moves(stage, None, 1)
    assert moves is not None and len(moves) == len(patcher.alignment.pairs) == patcher.clean_count
    index, source = moves[-1]
    assert index[0] == source[0] == 1  # the head
    assert (source[1], index[1]) == patcher.alignment.pairs[-1]
    assert patcher.moves(stage, 2, 1) is None  # "big"'s neighbour pairs with nothing: nothing to put there
    target, contrast = _predictions(patcher)
    sweep = patcher.head_sweep(target, contrast, -1, stages=[stage])
    assert all(v == v for v in sweep.patched[0])


def test_an_alignment_by_hand_refuses_what_it_cannot_pair_in_one_sentence():
    adapter = load_adapter("tiny-gpt2")
    texts = ({"prompt": "the cat is on the mat ="}, {"prompt": "the dog ="})
    for align, message in (("0:0,9:1", "outside the clean text"), ("0:5", "outside the corrupted text"),
                           ("0:0,1:0", "paired twice"), ("a:b", "CLEAN:CORRUPTED"), ("", "pairs no positions"),
                           ("1:1", "pairs with no position")):
        with pytest.raises(ReadoutError, match=message):
            patcher = Patcher(adapter, *texts, align=align)
            patcher.sweep(0, 1, -1)


def _reference_head_sweep(folder, clean, corrupt, position, target, contrast):
    """Layers × heads of logit differences, each head patched with a pre-hook on the attention's output projection
    (GPT-2's c_proj, Llama's o_proj): its input is every head's P·V side by side, head h at columns h·d … (h+1)·d."""
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder)).eval()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    blocks = model.transformer.h if hasattr(model, "transformer") else model.model.layers
    projections = [b.attn.c_proj if hasattr(b, "attn") else b.self_attn.o_proj for b in blocks]
    heads = model.config.num_attention_heads
    width = model.config.hidden_size // heads if not hasattr(model.config, "head_dim") else model.config.head_dim

    seen = {}
    hooks = [p.register_forward_pre_hook(lambda _m, args, i=i: seen.__setitem__(i, args[0].clone()))
             for i, p in enumerate(projections)]
    with torch.no_grad():
        model(**tokenizer(clean, return_tensors="pt"))
    for h in hooks:
        h.remove()
    ids = tokenizer(corrupt, return_tensors="pt")
    out = []
    for layer, projection in enumerate(projections):
        lds = []
        for head in range(heads):
            def pre(_m, args, layer=layer, head=head):
                value = args[0].clone()
                columns = slice(head * width, (head + 1) * width)
                value[..., columns] = seen[layer][..., columns]
                return (value, *args[1:])
            handle = projection.register_forward_pre_hook(pre)
            lds.append(_difference_with(handle, model, ids, position, target, contrast))
        out.append(lds)
    return out


def test_a_head_sweep_equals_patching_each_head_with_plain_hooks(case):
    folder, patcher, clean, corrupt = case
    target, contrast = _predictions(patcher)
    sweep = patcher.head_sweep(target, contrast, -1)
    assert sweep.across == "head" and sweep.rows == patcher.head_stages and len(sweep.rows) >= 2
    assert sweep.forwards == len(sweep.rows) * len(sweep.positions)
    expected = _reference_head_sweep(folder, clean, corrupt, patcher.count - 1, target, contrast)
    assert len(expected) == len(sweep.patched) and len(expected[0]) == len(sweep.positions)
    for got_row, want_row in zip(sweep.patched, expected):
        assert got_row == pytest.approx(want_row, rel=1e-5, abs=1e-5)
    assert sweep.to_dict()["across"] == "head"


def test_a_head_sweep_refuses_a_stage_that_is_not_a_context():
    adapter = load_adapter("tiny-gpt2")
    patcher = Patcher(adapter, {"prompt": "the cat is on the mat ="}, {"prompt": "the dog is on the mat ="})
    with pytest.raises(ReadoutError, match="is not an attention's context"):
        patcher.head_sweep(0, 1, -1, stages=["dec.0.ffn.resid"])


def _reference_head_position_sweep(folder, clean, corrupt, position, target, contrast):
    """Layers × (heads × positions), head-major, of logit differences: one head at one position patched with a
    pre-hook on the attention's output projection (its input: every head's P·V side by side)."""
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder)).eval()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    blocks = model.transformer.h if hasattr(model, "transformer") else model.model.layers
    projections = [b.attn.c_proj if hasattr(b, "attn") else b.self_attn.o_proj for b in blocks]
    heads = model.config.num_attention_heads
    width = model.config.hidden_size // heads if not hasattr(model.config, "head_dim") else model.config.head_dim
    seen = {}
    hooks = [p.register_forward_pre_hook(lambda _m, args, i=i: seen.__setitem__(i, args[0].clone()))
             for i, p in enumerate(projections)]
    with torch.no_grad():
        model(**tokenizer(clean, return_tensors="pt"))
    for h in hooks:
        h.remove()
    ids = tokenizer(corrupt, return_tensors="pt")
    out = []
    for layer, projection in enumerate(projections):
        lds = []
        for head in range(heads):
            for p in range(ids["input_ids"].shape[1]):
                def pre(_m, args, layer=layer, head=head, p=p):
                    value = args[0].clone()
                    columns = slice(head * width, (head + 1) * width)
                    value[:, p, columns] = seen[layer][:, p, columns]
                    return (value, *args[1:])
                handle = projection.register_forward_pre_hook(pre)
                lds.append(_difference_with(handle, model, ids, position, target, contrast))
        out.append(lds)
    return out


def test_a_head_by_position_sweep_equals_patching_one_head_at_one_position_with_plain_hooks(case):
    folder, patcher, clean, corrupt = case
    target, contrast = _predictions(patcher)
    sweep = patcher.head_sweep(target, contrast, -1, positions=range(patcher.count))
    heads = patcher.heads(patcher.head_stages[0])
    assert sweep.across == "head_position" and sweep.heads == list(range(heads))
    assert sweep.positions == list(range(patcher.count))
    assert sweep.forwards == len(sweep.rows) * heads * patcher.count
    assert sweep.columns[1] == (0, 1) and sweep.columns[patcher.count] == (1, 0)
    expected = _reference_head_position_sweep(folder, clean, corrupt, patcher.count - 1, target, contrast)
    for got_row, want_row in zip(sweep.patched, expected, strict=True):
        assert got_row == pytest.approx(want_row, rel=1e-4, abs=1e-4)
    data = sweep.to_dict()
    assert data["across"] == "head_position" and data["columns"][1] == [0, 1] and data["heads"] == sweep.heads
    # a head at every position patched one position at a time: the last position is the only one the last
    # layer's attention output reaches the measured logits from
    last = sweep.recovered[-1]
    assert all(last[h * patcher.count + p] == pytest.approx(0.0, abs=1e-5)
               for h in range(heads) for p in range(patcher.count - 1))


#: batched sweeps equal one-forward-a-cell sweeps within this much of the fraction recovered: the worst seen is
#: 5.4e-7 on tiny-gpt2, 4.8e-6 on the random Llama (its logit gap is 0.013, so the fractions magnify the
#: rounding of a batched matmul) and 1.1e-6 on the real chat model (`tfdebug patch` on SmolLM2-135M-Instruct,
#: --batch 1 against the default, 31 rows × 5 positions); a cell put into the wrong batch row moves a fraction by
#: 0.01 or more
BATCHED_TOLERANCE = 1e-4


@pytest.mark.parametrize("kind", ["position", "head", "head_position"])
def test_a_batched_sweep_equals_one_forward_a_cell(case, kind):
    folder, patcher, clean, corrupt = case
    target, contrast = _predictions(patcher)
    single = Patcher(patcher.adapter, {"prompt": clean}, {"prompt": corrupt}, batch=1)

    def run(p):
        if kind == "position":
            return p.sweep(target, contrast, -1)
        return p.head_sweep(target, contrast, -1, positions=range(p.count) if kind == "head_position" else None)
    batched, alone = run(patcher), run(single)
    assert alone.batch == 1 and alone.batches == alone.forwards
    assert batched.batch > 1 and batched.batches == -(-batched.forwards // batched.batch) < batched.forwards
    assert batched.to_dict()["batches"] == batched.batches and batched.forwards == alone.forwards
    worst = max(abs(a - b) for ra, rb in zip(batched.recovered, alone.recovered, strict=True)
                for a, b in zip(ra, rb, strict=True) if a == a)
    assert worst <= BATCHED_TOLERANCE
    # the tolerance tells cells apart: swapping two cells of different fractions would fail it
    flat = [v for row in alone.recovered for v in row if v == v]
    assert max(flat) - min(flat) > 100 * BATCHED_TOLERANCE


def test_the_batch_keeps_within_the_capture_budget_and_stops_at_a_cancel():
    adapter = load_adapter("tiny-gpt2")
    texts = ({"prompt": "the cat is on the mat ="}, {"prompt": "the dog is on the mat ="})
    probe = Patcher(adapter, *texts)
    cells = [(probe.rows[0], (p,)) for p in range(probe.count)]
    row = probe.row_bytes(cells)
    probs = next(c for c in probe.clean.captures.values() if c.info.kind == "softmax")
    heads = probs.shape[probs.info.axes.index("head")]
    assert row - probe.working_bytes() > 0 and probe.working_bytes() >= 3 * 4 * heads * probe.count ** 2
    patcher = Patcher(adapter, *texts, max_capture_bytes=3 * row + row // 2)
    seen = []
    sweep = patcher.sweep(0, 1, -1, progress=lambda done, total: seen.append((done, total)) or True)
    assert sweep.batch <= 3 and sweep.batches == -(-sweep.forwards // sweep.batch)
    assert len(seen) == sweep.batches and seen[-1] == (sweep.forwards, sweep.forwards)
    assert Patcher(adapter, *texts, max_capture_bytes=1).sweep(0, 1, -1, rows=probe.rows[:1]).batch == 1
    with pytest.raises(ReadoutError, match="cancelled"):
        patcher.sweep(0, 1, -1, progress=lambda done, total: done < sweep.batch)
    with pytest.raises(ReadoutError, match="at least one"):
        Patcher(adapter, *texts, batch=0)
