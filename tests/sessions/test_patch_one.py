"""Patch one stage and continue: one head at one position, checked against a plain pre-hook on the unmodified
model's output projection; whole and per-position patches against the sweeps; what moved, stage by stage."""

from __future__ import annotations

import pytest
import torch

from tfdebug.adapters.bundled import bundled_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.core.readout import ReadoutError
from tfdebug.sessions.patch_one import patch_one
from tfdebug.sessions.patching import Patcher

transformers = pytest.importorskip("transformers")

CLEAN, CORRUPT = "the cat is on the mat =", "the dog is on the mat ="


@pytest.fixture(scope="module")
def patcher():
    return Patcher(load_adapter("tiny-gpt2"), {"prompt": CLEAN}, {"prompt": CORRUPT}, batch=1)  # a forward a cell, as patch_one


def test_one_head_at_one_position_equals_a_pre_hook_on_the_unmodified_model(patcher):
    folder = bundled_folder("tiny-gpt2")
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    proj, heads = model.transformer.h[0].attn.c_proj, model.config.n_head
    width = model.config.n_embd // heads
    kept = {}
    handle = proj.register_forward_pre_hook(lambda _m, args: kept.update(x=args[0].clone()))
    with torch.no_grad():
        model(**tokenizer(CLEAN, return_tensors="pt"))
    handle.remove()
    for head, position in ((1, 2), (1, 7), (3, 0)):
        columns = slice(head * width, (head + 1) * width)

        def put(_module, args, head=head, position=position, columns=columns):
            merged = args[0].clone()
            merged[:, position, columns] = kept["x"][:, position, columns]
            return (merged,)
        handle = proj.register_forward_pre_hook(put)
        try:
            with torch.no_grad():
                logits = model(**tokenizer(CORRUPT, return_tensors="pt")).logits[0, -1].double()
        finally:
            handle.remove()
        patched = patch_one(patcher, "dec.0.self_attn.context", position=position, head=head)
        assert patched.scope == f"position {position} head {head}"
        own = float(logits[patched.target] - logits[patched.contrast])
        assert patched.patched == pytest.approx(own, rel=1e-5, abs=1e-5), (head, position)


def test_whole_and_per_position_patches_equal_the_sweeps_cells(patcher):
    whole = patch_one(patcher, "tok.pos")
    assert torch.equal(next(c.tensor for c in whole.captures if c.name == "logits"), patcher.logits(patcher.clean))
    assert whole.recovered == 1.0 and whole.moved.first_divergent.name == "tok.pos"
    sweep = patcher.sweep(whole.target, whole.contrast, positions=[2, 7])
    for column, position in enumerate([2, 7]):
        for r, row in enumerate(sweep.rows):
            patched = patch_one(patcher, row, position=position)
            assert patched.patched == pytest.approx(sweep.patched[r][column], rel=1e-6, abs=1e-6), (row, position)
    heads = patcher.head_sweep(whole.target, whole.contrast)
    for h in range(4):
        patched = patch_one(patcher, heads.rows[0], head=h)
        assert patched.recovered == pytest.approx(heads.recovered[0][h], rel=1e-6, abs=1e-6)


def test_what_moved_starts_at_the_patched_stage_and_nothing_before_it_moved(patcher):
    patched = patch_one(patcher, "dec.1.ffn.resid", position=7)
    names = [row.name for row in patched.moved.stages]
    moved = patched.moved_stages()
    assert moved[0] == "dec.1.ffn.resid" and patched.to_dict()["first_moved"] == "dec.1.ffn.resid"
    assert all(names.index(name) >= names.index("dec.1.ffn.resid") for name in moved)
    assert set(moved) == {"dec.1.ffn.resid", "dec.norm", "logits"}
    assert patched.recovered == pytest.approx(1.0, abs=1e-6)  # the last position's residual carries everything


@pytest.mark.parametrize("kwargs, says", [
    ({"stage": "tok.pos", "head": 0}, "has no head axis"),
    ({"stage": "tok.pos", "position": 40}, "outside stage tok.pos's 8 positions"),
    ({"stage": "dec.0.self_attn.context", "head": 9}, "outside stage dec.0.self_attn.context's 4 heads"),
    ({"stage": "no.such.stage"}, "no stage no.such.stage"),
])
def test_what_cannot_be_patched_is_one_sentence(patcher, kwargs, says):
    with pytest.raises(ReadoutError, match=says):
        patch_one(patcher, **kwargs)


def test_a_head_into_a_longer_text_puts_every_paired_position_as_a_pre_hook_does():
    longer = "the big dog is on the mat ="
    folder = bundled_folder("tiny-gpt2")
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    a, b = tokenizer(CLEAN)["input_ids"], tokenizer(longer)["input_ids"]
    n, m = len(a), len(b)
    shared = next(i for i in range(n) if a[i] != b[i])
    assert m > n and shared >= 1
    pairs = [(p, p) for p in range(shared)] + [(n - k, m - k) for k in range(n - shared, 0, -1)]  # then from the end
    proj, width = model.transformer.h[1].attn.c_proj, model.config.n_embd // model.config.n_head
    kept = {}
    handle = proj.register_forward_pre_hook(lambda _m, args: kept.update(x=args[0].clone()))
    with torch.no_grad():
        model(**tokenizer(CLEAN, return_tensors="pt"))
    handle.remove()
    columns = slice(2 * width, 3 * width)

    def put(_module, args):
        merged = args[0].clone()
        for c, k in pairs:
            merged[:, k, columns] = kept["x"][:, c, columns]
        return (merged,)
    handle = proj.register_forward_pre_hook(put)
    try:
        with torch.no_grad():
            logits = model(**tokenizer(longer, return_tensors="pt")).logits[0, -1].double()
    finally:
        handle.remove()
    patcher = Patcher(load_adapter("tiny-gpt2"), {"prompt": CLEAN}, {"prompt": longer}, batch=1)
    patched = patch_one(patcher, "dec.1.self_attn.context", head=2)
    assert patched.scope == "head 2"
    assert patched.patched == pytest.approx(float(logits[patched.target] - logits[patched.contrast]), rel=1e-5,
                                            abs=1e-5)
    with pytest.raises(ReadoutError, match="beyond the positions the texts pair"):
        patch_one(patcher, "dec.0.self_attn.probs")  # its key axis differs too
    with pytest.raises(ReadoutError, match="pairs with no position"):
        patch_one(patcher, "tok.pos", position=shared)  # "big"
