"""Live checks hold on a real pass, and fail when the tensor breaks the promise of its kind."""

from dataclasses import replace

import pytest

from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.checks import stage_checks
from tfdebug.core.explain import EXPLANATIONS
from tfdebug.core.phrases import Phrase
from tfdebug.core.stages import KINDS


def _pass(spec, texts):
    session = DebugSession(load_adapter(spec), texts)
    captures, _ = session.capture_all()
    session.close()
    return {c.name: c for c in captures}


@pytest.fixture(scope="module")
def random_pass():
    return _pass("random", {"src": "I love you", "tgt": "我 爱 你"})


@pytest.fixture(scope="module")
def padded_notes_pass():
    return _pass("notes", {"src": "I love you", "tgt": "我 爱 你"})


def checks(captures, name, tensor=None):
    capture = captures[name]
    return stage_checks(capture.info, capture.tensor if tensor is None else tensor, captures.get)


def test_every_check_of_every_stage_passes_on_a_real_pass(random_pass, padded_notes_pass):
    for captures in (random_pass, padded_notes_pass):
        for name in captures:
            for check in checks(captures, name):
                assert check.ok is True, (name, check.text, check.detail)


def test_the_stages_the_issue_names_have_their_checks(random_pass):
    probs = {c.text for c in checks(random_pass, "dec.0.self_attn.probs")}
    assert "Every row sums to 1" in probs
    assert "0 wherever the mask is −∞ (strictly above the diagonal)" in probs
    masked = {c.text for c in checks(random_pass, "dec.0.self_attn.masked")}
    assert "−∞ everywhere strictly above the diagonal" in masked
    assert "Nothing on or below the diagonal is masked" in masked
    scaled = checks(random_pass, "dec.0.self_attn.scaled")
    assert scaled[0].text == "scaled × √16 equals scores (÷ 4)"  # random: d_model 64, 4 heads
    assert checks(random_pass, "src.pe")[0].text.id == "check.pe_row0"


def test_a_padding_mask_is_checked_as_padding(padded_notes_pass):
    texts = {c.text: c.ok for c in checks(padded_notes_pass, "enc.0.attn.masked")}
    assert texts["Padding hides whole key columns (<pad> keys)"] is True
    assert "−∞ everywhere strictly above the diagonal" not in texts
    both = {c.text for c in checks(padded_notes_pass, "dec.0.self_attn.masked")}
    assert {"−∞ everywhere strictly above the diagonal", "Padding hides whole key columns (<pad> keys)"} <= both
    scaled = checks(padded_notes_pass, "dec.0.self_attn.scaled")
    assert scaled[0].text == "scaled × √64 equals scores (÷ 8)" and scaled[0].ok


def test_broken_tensors_get_a_cross(random_pass):
    probs = random_pass["dec.0.self_attn.probs"].tensor
    leaky = probs.clone()
    leaky[..., 0, -1] = 0.5  # the first query reads the future
    results = {c.text: c.ok for c in checks(random_pass, "dec.0.self_attn.probs", leaky)}
    assert results["Every row sums to 1"] is False
    assert results["0 wherever the mask is −∞ (strictly above the diagonal)"] is False
    masked = random_pass["dec.0.self_attn.masked"].tensor.clone()
    masked[..., 0, -1] = 0.0
    results = {c.text: c.ok for c in checks(random_pass, "dec.0.self_attn.masked", masked)}
    assert results["−∞ everywhere strictly above the diagonal"] is False
    scaled = random_pass["dec.0.self_attn.scaled"].tensor * 1.01
    assert checks(random_pass, "dec.0.self_attn.scaled", scaled)[0].ok is False


def test_a_missing_input_stage_is_said_not_guessed(random_pass):
    capture = random_pass["enc.0.attn.scaled"]
    (check,) = stage_checks(capture.info, capture.tensor, lambda name: None)
    assert check.ok is None and "not in this pass" in check.detail


def test_every_kind_is_explained_with_phrases_the_window_translates():
    """English here; the Chinese is in the catalogue (tests/ui/test_i18n.py holds every phrase to it)."""
    assert set(EXPLANATIONS) == set(KINDS)
    for kind, e in EXPLANATIONS.items():
        for field in ("what", "look_for"):
            text = getattr(e, field)
            assert isinstance(text, Phrase) and text.strip() and text.id == f"explain.{kind}.{field}"
        assert e.formula.strip()
    assert isinstance(EXPLANATIONS["softmax"].formula, Phrase)  # its words too


@pytest.mark.parametrize("adapter_id", sorted(__import__("tests.adapters.test_contract",
                                                          fromlist=["ADAPTERS"]).ADAPTERS))
def test_no_check_fails_on_any_adapted_model(adapter_id):
    """Hugging Face (rotary, grouped queries, T5's own scale), SDPA modules, the toy: a check that
    can be made holds; none is a false alarm."""
    from tests.adapters.test_contract import ADAPTERS

    factory, texts = ADAPTERS[adapter_id]
    adapter = factory()
    session = DebugSession(adapter, texts)
    captures = {c.name: c for c in session.capture_all()[0]}
    session.close()
    made = 0
    for name, capture in captures.items():
        for check in stage_checks(capture.info, capture.tensor, captures.get):
            assert check.ok is not False, (adapter_id, name, check.text, check.detail)
            made += check.ok is True
    assert made > 0


@pytest.mark.parametrize("banded", [False, True], ids=["by-head", "by-band"])
@pytest.mark.parametrize("model_type", ["llama", "gpt2"])
def test_a_recipe_plane_is_checked_one_head_at_a_time_with_the_whole_planes_verdicts(model_type, banded,
                                                                                      monkeypatch):
    """The checks of a recipe stage (scores, scaled, masked, probabilities) read one head's plane at a time
    (a long prompt's whole plane would not fit), and those that hold row by row a band of query rows at a time
    (`banded`: bands of 16 of the ~40 rows, as a 32k-token head's are of 512), and say what the whole plane's
    checks say: the same ticks, counts summed over heads, the largest difference, the extremes."""
    from tfdebug.core import bands
    if banded:
        monkeypatch.setattr(bands, "BAND_CELLS", 16 * 40)
    from tests.adapters import hf_archs, hf_tiny
    from tests.adapters.test_recipes_exact import LONG
    from tfdebug.adapters.hf.adapter import wrap

    arch = next(a for a in hf_archs.ARCHITECTURES if a.model_type == model_type)
    session = DebugSession(wrap(hf_archs.build(arch), hf_tiny.word_tokenizer(False)), LONG[arch.kind])
    captures = {c.name: c for c in session.capture_all()[0]}
    session.close()
    planes = [c for c in captures.values() if c.recipe and c.info.kind != "kv_repeat"]
    repeats = [c for c in captures.values() if c.recipe and c.info.kind == "kv_repeat"]  # checked whole
    assert {c.info.kind for c in planes} >= {"scores", "scale", "mask", "softmax"}
    whole_planes = {name: replace(c, tensor=c.tensor.materialize()) if c.recipe else c for name, c in captures.items()}
    contexts = [c for c in captures.values() if c.info.kind == "attn_v"]  # P·V recomputed from the recipe's P
    from tfdebug.core.checks import _row_bands
    assert {len(_row_bands(c.info, c.tensor)) > 1 for c in planes if c.info.kind != "mask"} == {banded}
    for capture in planes + contexts + repeats:
        by_head = stage_checks(capture.info, capture.tensor, captures.get)
        whole = stage_checks(capture.info, whole_planes[capture.name].tensor, whole_planes.get)
        assert by_head and [(c.ok, str(c.text), str(c.detail)) for c in by_head] == \
            [(c.ok, str(c.text), str(c.detail)) for c in whole], capture.name
