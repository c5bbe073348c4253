"""Why this output, on a real pretrained chat model (SmolLM2-135M-Instruct, tests.adapters.real_chat) and the prompt
"The capital of France is", as a user asks it from the command line.

The model's own answer is the reference: transformers' AutoTokenizer prepares every input, the unmodified model
(eager attention) gives the logits, and patching is written here with a plain forward hook on a decoder layer.
"""

from __future__ import annotations

import json

import pytest
import torch

from tests.adapters.real_chat import chat_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.cli import main
from tfdebug.sessions.patching import Patcher
from tfdebug.sessions.session import DebugSession

transformers = pytest.importorskip("transformers")

CLEAN, CORRUPT = "The capital of France is", "The capital of Italy is"
COUNTRY, LAST = 3, 4  # " France" / " Italy", then " is": the token positions


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return chat_folder(tmp_path_factory)


@pytest.fixture(scope="module")
def reference(folder):
    """(model, tokenizer): the unmodified model with eager attention and AutoTokenizer, both transformers' own."""
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    return model, transformers.AutoTokenizer.from_pretrained(str(folder))


def _logits(model, ids, hook=None) -> torch.Tensor:
    """The last position's logits of `model` on `ids`, with `(layer, hook)` registered on that decoder layer."""
    handle = model.model.layers[hook[0]].register_forward_hook(hook[1]) if hook else None
    try:
        with torch.no_grad():
            return model(**ids).logits[0, -1]
    finally:
        if handle is not None:
            handle.remove()


def _token(tokenizer, text: str) -> int:
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    assert len(ids) == 1, ids
    return ids[0]


def test_the_pass_is_the_model_s_own_and_verifies(folder, reference):
    model, tokenizer = reference
    session = DebugSession(load_adapter(f"hf:{folder}"), {"prompt": CLEAN})
    captures, _ = session.capture_all(verify="now")
    assert session.verification.ok, session.verification
    ids = tokenizer(CLEAN, return_tensors="pt")
    assert torch.equal(session.prepared.kwargs["input_ids"], ids["input_ids"])
    logits = next(c.tensor for c in captures if c.name == "logits")
    assert torch.equal(logits[0, -1], _logits(model, ids))
    paris = _token(tokenizer, " Paris")
    assert int(logits[0, -1].argmax()) == paris  # the model answers " Paris"


def test_the_lens_shows_paris_rising_to_the_top_in_the_last_layers(folder, capsys):
    assert main(["lens", "--model", f"hf:{folder}", "--input", f"prompt={CLEAN}", "--target", " Paris",
                 "--positions", "-1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rows"][0] == "tok.embed" and len(data["rows"]) == 31
    ranks = [row[0]["rank"] for row in data["cells"]]
    assert ranks[-1] == 1 and data["cells"][-1][0]["top_tokens"][0] == " Paris"
    assert min(ranks[:23]) > 100  # the embeddings and the first 22 blocks do not have it in their top 100
    assert ranks[-3] <= 10 and ranks[-2] <= 5  # it climbs through the last blocks
    assert ranks[-4] > ranks[-3] > ranks[-2] > ranks[-1]


def test_attribute_paris_against_london_sums_to_the_model_s_own_logit_difference(folder, reference, capsys):
    model, tokenizer = reference
    assert main(["attribute", "--model", f"hf:{folder}", "--input", f"prompt={CLEAN}", "--target", " Paris",
                 "--contrast", " London", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    logits = _logits(model, tokenizer(CLEAN, return_tensors="pt")).double()
    own = float(logits[_token(tokenizer, " Paris")] - logits[_token(tokenizer, " London")])
    assert data["logit_diff"] == pytest.approx(own, rel=1e-6)
    assert data["total"] == pytest.approx(own, rel=1e-5)
    assert sum(t["value"] for t in data["terms"]) == pytest.approx(own, rel=1e-5)
    heads = [t for t in data["terms"] if t["kind"] == "head"]
    assert len(heads) == 30 * 9
    strongest = max(heads, key=lambda t: abs(t["value"]))
    assert strongest["layer"] >= 20 and strongest["value"] > 0  # a late head writes " Paris" over " London"


def test_patching_france_into_italy_localises_to_the_country_early_and_the_last_position_late(folder, reference):
    model, tokenizer = reference
    patcher = Patcher(load_adapter(f"hf:{folder}"), {"prompt": CLEAN}, {"prompt": CORRUPT})
    paris, rome = _token(tokenizer, " Paris"), _token(tokenizer, " Rome")
    early, late = ["tok.embed", "dec.4.ffn.resid", "dec.12.ffn.resid"], ["dec.25.ffn.resid", "dec.29.ffn.resid"]
    sweep = patcher.sweep(paris, rome, rows=early + late, positions=[COUNTRY, LAST])
    for r, row in enumerate(early + late):
        country, last = sweep.recovered[r]
        if row in early:  # what tells France from Italy is still at the country's own position
            assert country == pytest.approx(1.0, abs=0.05) and abs(last) < 0.05, row
        else:  # it has moved to the last position, where the answer is read
            assert last == pytest.approx(1.0, abs=0.05) and abs(country) < 0.05, row
    # the same patch written here: layer 12's output at the country's position taken from the clean pass
    clean_ids, corrupt_ids = tokenizer(CLEAN, return_tensors="pt"), tokenizer(CORRUPT, return_tensors="pt")
    kept = {}

    def hidden(out):  # a decoder layer returns its hidden states, alone or first in a tuple
        return out[0] if isinstance(out, tuple) else out

    _logits(model, clean_ids, (12, lambda _m, _a, out: kept.update(h=hidden(out)[:, COUNTRY].clone())))

    def put(_module, _args, out):
        hidden(out)[:, COUNTRY] = kept["h"]
        return out

    patched = _logits(model, corrupt_ids, (12, put)).double()
    assert sweep.patched[2][0] == pytest.approx(float(patched[paris] - patched[rome]), abs=1e-4)


def test_patching_the_whole_first_row_gives_the_clean_logits_exactly(folder):
    patcher = Patcher(load_adapter(f"hf:{folder}"), {"prompt": CLEAN}, {"prompt": CORRUPT})
    clean = patcher.logits(patcher.clean)
    assert torch.equal(patcher.patch("tok.embed", patcher.clean.tensor("tok.embed").unsqueeze(0)), clean)


def test_patching_france_into_the_longer_united_kingdom_pairs_the_country_with_its_last_word(folder, reference, capsys):
    """"The capital of the United Kingdom is" has two tokens more: "The capital of" pairs from the start, " France"
    with " Kingdom" and " is" with " is" from the end, " the United" with nothing. The country's difference sits at
    " Kingdom" up to block 22 and at the last position from block 23 on, as France against Italy; one cell is
    written here as a forward hook on the unmodified model."""
    model, tokenizer = reference
    longer = "The capital of the United Kingdom is"
    assert main(["patch", "--model", f"hf:{folder}", "--input", f"prompt={CLEAN}", "--corrupt", f"prompt={longer}",
                 "--target", " Paris", "--contrast", " London", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["alignment"]["pairs"] == [[0, 0], [1, 1], [2, 2], [3, 5], [4, 6]]
    assert data["corrupt_tokens"][5] == " Kingdom" and data["cells"] == 31 * 5
    rows, recovered = data["rows"], data["recovered"]
    for r, row in enumerate(rows):
        assert recovered[r][3] != recovered[r][3] and recovered[r][4] != recovered[r][4]  # paired with nothing
        kingdom, last = recovered[r][5], recovered[r][6]
        if row in ("tok.embed", "dec.4.ffn.resid", "dec.12.ffn.resid", "dec.21.ffn.resid"):
            assert kingdom == pytest.approx(1.0, abs=0.1) and abs(last) < 0.05, row
        if row in ("dec.24.ffn.resid", "dec.29.ffn.resid"):
            assert last == pytest.approx(1.0, abs=0.05) and abs(kingdom) < 0.05, row
    clean_ids, corrupt_ids = tokenizer(CLEAN, return_tensors="pt"), tokenizer(longer, return_tensors="pt")
    kept = {}

    def hidden(out):
        return out[0] if isinstance(out, tuple) else out

    _logits(model, clean_ids, (12, lambda _m, _a, out: kept.update(h=hidden(out)[:, COUNTRY].clone())))

    def put(_module, _args, out):
        hidden(out)[:, 5] = kept["h"]
        return out

    patched = _logits(model, corrupt_ids, (12, put)).double()
    paris, london = _token(tokenizer, " Paris"), _token(tokenizer, " London")
    assert data["ld_patched"][rows.index("dec.12.ffn.resid")][5] == pytest.approx(
        float(patched[paris] - patched[london]), abs=1e-4)
