"""A Run of a length not planned before grows its plan from two earlier lengths' (tfdebug.core.plan_growth) where
these show that the model's stages grow with the input: no planning pass runs, and the grown plan is the plan a
planning pass makes. A padded input, or a model whose second plan is not its first grown, is planned each time; a
finished pass that a grown plan did not describe makes the model's later lengths be planned again."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from tests.adapters import hf_tiny  # noqa: E402
from tests.sessions.test_plan_reuse import count_plans  # noqa: E402
from tfdebug.adapters.hf.adapter import wrap  # noqa: E402
from tfdebug.core import plan_growth  # noqa: E402
from tfdebug.sessions.session import DebugSession, input_tensors  # noqa: E402

WORDS = "the cat sat on the mat I love you apple is delicious".split()


@pytest.fixture()
def counted(monkeypatch):
    """A tiny Llama's adapter (planned on meta), the list of planning passes made (each call of make_plan) and
    make_plan itself (a pass planned for the test's own comparison is not counted)."""
    import transformers

    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=hf_tiny.word_tokenizer(), pad_token="[PAD]")
    adapter = wrap(hf_tiny.llama(), tokenizer)
    calls, make = count_plans(monkeypatch)
    return adapter, calls, make


def _session(adapter, words: int, **options) -> DebugSession:
    return DebugSession(adapter, {"prompt": " ".join((WORDS * 4)[:words])}, planning="meta", **options)


def _fresh(session: DebugSession, make):
    """The plan a planning pass makes of `session`'s input (the model's own, not grown)."""
    return make(session.adapter.module, session.forward, input_tensors(session.prepared), "meta")


def test_a_third_length_is_grown_from_two_and_is_the_plan_a_planning_pass_makes(counted):
    adapter, calls, make = counted
    first, second = _session(adapter, 3), _session(adapter, 5)
    assert len(calls) == 2 and first.plan.method == second.plan.method == "meta"
    for words in (9, 2, 20):
        grown = _session(adapter, words)
        assert len(calls) == 2, "a length of a regular model is not planned again"
        assert grown.plan.method == "grown"
        assert plan_growth.described(grown.plan) == plan_growth.described(_fresh(grown, make))
        captures, _ = grown.capture_all(verify="never")
        assert grown.confirm_plan(captures) and grown.plan.method == "grown"


def test_a_padded_input_is_planned_not_grown(counted):
    adapter, calls, _ = counted
    _session(adapter, 3), _session(adapter, 5)
    padded = DebugSession(adapter, prepared=adapter.prepare_batch([{"prompt": "the cat sat on the mat"},
                                                                   {"prompt": "the cat"}]), planning="meta")
    assert padded.plan.method == "meta" and len(calls) == 3


def test_a_pass_the_grown_plan_missed_replaces_it_and_later_lengths_are_planned(counted):
    adapter, calls, _ = counted
    _session(adapter, 3), _session(adapter, 5)
    grown = _session(adapter, 9)
    assert grown.plan.method == "grown"
    captures, _ = grown.capture_all(verify="never")
    wrong = list(captures[:-1])  # a pass with a stage fewer than its plan says
    assert not plan_growth.confirm(adapter.module, grown.plan, wrong)
    later = _session(adapter, 11)
    assert later.plan.method == "meta" and len(calls) == 3


def test_a_model_whose_second_plan_is_not_its_first_grown_is_planned_at_every_length(counted, monkeypatch):
    adapter, calls, _ = counted
    _session(adapter, 3)
    real_grow = plan_growth.grow
    monkeypatch.setattr(plan_growth, "grow", lambda *args: None)  # as for a stage whose axis is not the tokens'
    _session(adapter, 5)
    monkeypatch.setattr(plan_growth, "grow", real_grow)
    assert _session(adapter, 9).plan.method == "meta" and len(calls) == 3


def test_planning_the_input_one_token_shorter_lets_the_next_length_grow(counted):
    adapter, calls, make = counted
    first = _session(adapter, 6)
    assert first.plan_another_length() and len(calls) == 2
    assert not first.plan_another_length(), "the family is known: nothing more to plan"
    later = _session(adapter, 11)
    assert later.plan.method == "grown" and len(calls) == 2
    assert plan_growth.described(later.plan) == plan_growth.described(_fresh(later, make))
    real = DebugSession(adapter, {"prompt": "the cat"}, planning="real")
    assert not real.plan_another_length(), "only a plan made on meta is one a length grows from"
