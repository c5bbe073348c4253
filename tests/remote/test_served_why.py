"""Why This Output of a served pass, computed on the server: the lens, the attribution and the patching sweep that
cross equal the local ones of the same model and text; hostile requests (a lens of 10^5 or of 10^9-th positions,
a token id outside the vocabulary, a sweep of texts the model does not take) are one sentence each, and the
server answers on."""

from __future__ import annotations

import pytest

pytest.importorskip("zmq")
pytest.importorskip("transformers")

from tests.remote.served import served_here  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.core.errors import TfdebugError  # noqa: E402
from tfdebug.core.readout import ReadoutError  # noqa: E402
from tfdebug.remote.explaining import RemoteWhy  # noqa: E402
from tfdebug.remote.protocol import MAX_LENS_POSITIONS  # noqa: E402
from tfdebug.remote.session import RemoteSession  # noqa: E402
from tfdebug.sessions.why import finished_pass  # noqa: E402

PROMPT = {"prompt": "the cat is on the mat ="}
CORRUPT = {"prompt": "the dog is on the mat ="}


@pytest.fixture(scope="module")
def server():
    with served_here(model="tiny-gpt2", texts=PROMPT, client_timeout_s=30.0) as served:
        yield served


@pytest.fixture(scope="module")
def local():
    return finished_pass(load_adapter("tiny-gpt2"), texts=PROMPT)


@pytest.fixture()
def window(server):
    session = RemoteSession.connect(server.address, server.token, timeout_s=30.0)
    try:
        session.stepper.restart()
        session.stepper.wait()
        session.stepper.continue_()
        assert session.stepper.wait() == "finished"
        yield session
    finally:
        session.close()


def test_a_pass_still_running_is_refused_in_the_server_s_sentence(server):
    session = RemoteSession.connect(server.address, server.token, timeout_s=30.0)
    try:
        session.stepper.restart()
        session.stepper.wait()
        with pytest.raises(ReadoutError, match="run it to the end first"):
            session.why()
    finally:
        session.close()


def test_the_served_lens_attribution_and_sweep_equal_the_local_ones(window, local):
    why = window.why()
    assert isinstance(why, RemoteWhy)
    assert why.rows == local.rows and why.count == local.count == 8
    assert why.token_labels() == local.token_labels() and why.vocabulary_size == local.vocabulary_size
    assert [why.prediction(p) for p in range(why.count)] == [local.prediction(p) for p in range(local.count)]
    grid = why.lens(list(range(why.count)), None, k=5)
    assert grid.to_dict() == local.lens(list(range(local.count)), None, k=5).to_dict()
    top = grid.cells[-1][-1].top[0][0]
    assert why.word(top) == local.word(top)  # the words of the tokens the cells name came with them
    target = why.prediction(-1)
    contrast = why.token_id("the")
    assert contrast == local.token_id("the") and why.word(contrast) == "the"
    served = why.attribute(target, contrast, -1)
    mine = local.attribute(target, contrast, -1)
    assert served.to_dict() == mine.to_dict()
    assert served.total == pytest.approx(served.logit_diff, rel=1e-5)
    seen = []
    sweep, t, c = why.sweep(CORRUPT, progress=lambda done, total: seen.append((done, total)) or True)
    own, t_local, c_local = local.sweep(CORRUPT)
    assert (t, c) == (t_local, c_local)
    assert sweep.to_dict() == own.to_dict() and sweep.forwards == 3 * 8
    assert seen[0] == (0, 24) and seen[-1] == (24, 24)
    assert sweep.recovered[0][2] == pytest.approx(1.0, abs=1e-5)  # "cat" → "dog" at the embeddings
    # Across heads: every head of every attention, on the server, equal to the local head sweep.
    assert why.head_rows == local.head_rows and why.heads == local.heads == 4 and len(why.head_rows) == 2
    seen.clear()
    heads, t, c = why.sweep(CORRUPT, progress=lambda done, total: seen.append((done, total)) or True, across="head")
    own, _, _ = local.sweep(CORRUPT, across="head")
    assert heads.across == "head" and heads.to_dict() == own.to_dict() and seen[0] == (0, 8)
    # Each head at each position: the "head_position" sweep crosses as a free `across`, its columns (head, position).
    seen.clear()
    cells, _, _ = why.sweep(CORRUPT, progress=lambda done, total: seen.append((done, total)) or True,
                            across="head_position")
    own, _, _ = local.sweep(CORRUPT, across="head_position")
    assert cells.across == "head_position" and cells.to_dict() == own.to_dict()
    assert cells.heads == [0, 1, 2, 3] and cells.positions == list(range(8)) and seen[0] == (0, 2 * 4 * 8)
    assert cells.forwards == 64 and cells.batches == -(-64 // cells.batch) and len(cells.recovered[0]) == 32
    # A corrupted text of another length: its positions pair with the clean text's, on the server as here.
    longer = {"prompt": "the big dog is on the mat ="}
    paired, _, _ = why.sweep(longer)
    own, _, _ = local.sweep(longer)
    assert paired.positions == list(range(9)) and paired.alignment == own.alignment and not own.alignment.identity
    assert repr(paired.to_dict()) == repr(own.to_dict())  # NaN where a position pairs with none, alike
    assert paired.tokens == own.tokens and len(paired.tokens) == 9


def test_hostile_why_requests_are_one_sentence_and_the_server_answers_on(server, window, local):
    for kind, fields, words in [
        ("lens", {"positions": list(range(10**5)), "k": 5}, "a list of at most"),
        ("lens", {"positions": [10**9], "k": 5}, "outside the pass's 8 tokens"),
        ("lens", {"positions": [0], "target": 10**12, "k": 5}, "outside the vocabulary"),
        ("lens", {"positions": [0], "k": 10**6}, "a whole number from 1 to"),
        ("lens", {"positions": [-1] * MAX_LENS_POSITIONS, "k": 20}, None),  # at the limits: answered
        ("attribute", {"target": 10**12, "position": -1}, "outside the vocabulary"),
        ("attribute", {"target": 0, "contrast": 2**40, "position": 0}, "outside the vocabulary"),
        ("attribute", {"target": 0, "position": -10**9}, "outside the pass's 8 tokens"),
        ("token_id", {"text": "#999999999"}, "outside the vocabulary"),
        ("token_id", {"text": "x" * 2000}, "a text of at most 1024"),
        ("patch_sweep", {"texts": {"nonsense": "the dog"}}, "takes no input named nonsense"),
        ("patch_sweep", {"texts": {"prompt": "a dog"}, "align": "0:0,9:1"}, "outside the clean text's 8 tokens"),
        ("patch_sweep", {"texts": {"prompt": "a dog"}, "align": "x" * 300000}, "a text of at most"),
        ("patch_sweep", {"texts": {"prompt": "the dog"}, "across": "layer"}, "one of"),
        ("patch_stage", {"texts": {"nonsense": "the dog"}, "stage": "tok.pos"}, "takes no input named nonsense"),
        ("patch_stage", {"texts": {"prompt": "the dog"}, "stage": "no.such"}, "no stage no.such"),
        ("patch_stage", {"texts": {"prompt": "the dog"}, "stage": "tok.pos", "head": 0}, "has no head axis"),
        ("patch_stage", {"texts": {"prompt": "the dog"}, "stage": "tok.pos", "position": 10**9}, "outside stage"),
        ("patch_stage", {"texts": {"prompt": "the dog"}, "stage": "x" * 2000}, "a text of at most 1024"),
    ]:
        if words is None:
            assert window.request(kind, fields).type == "reply"
            continue
        with pytest.raises(TfdebugError) as caught:
            window.request(kind, fields, timeout=60)
        assert words in caught.value.message, caught.value.message
        assert caught.value.message.count(". ") <= 2 and "\n" not in caught.value.message  # one sentence
    assert server.faults.count == 0
    why = window.why()  # the server answers on, the same
    assert why.lens([0], None).to_dict() == local.lens([0], None).to_dict()


def _remote_why(result, buffers=()):
    """A RemoteWhy of a two-row, three-token pass whose server answers every request with `result`."""
    from tests.remote.test_malformed_replies import served as answering

    client, link, lost, _ = answering(result, buffers)
    session = type("S", (), {"answer": staticmethod(client.answer)})()
    return RemoteWhy(session, ["tok.pos", "dec.0.ffn.resid"], 3, ["a", "b", "c"], 10, [1, 2, 3]), link, lost


CELL = {"top": [[1, 0.5]], "target": 1, "p_target": 0.5, "rank": 1, "entropy": 1.0, "kl": 0.0}


@pytest.mark.parametrize("result,ask", [
    ({"grid": {"rows": ["tok.pos", "dec.0.ffn.resid"], "positions": [0], "cells": [[CELL]]}},
     lambda w: w.lens([0])),  # a row of cells missing
    ({"grid": {"rows": ["tok.pos", "dec.0.ffn.resid"], "positions": [1], "cells": [[CELL], [CELL]]}},
     lambda w: w.lens([0])),  # another position than asked
    ({"grid": {"rows": ["tok.pos", "dec.0.ffn.resid"], "positions": [0], "cells": [[CELL], [{**CELL, "rank": "1"}]]}},
     lambda w: w.lens([0])),
    ({"attribution": {"position": 0, "target": 4, "contrast": None, "logit_diff": 1.0, "notes": [], "convention": "",
                      "terms": []}}, lambda w: w.attribute(5)),  # another target than asked
    ({"attribution": 3}, lambda w: w.attribute(5)),
    ({"id": "7"}, lambda w: w.token_id("x")),
    ({"sweep": {"rows": ["tok.pos", "dec.0.ffn.resid"], "positions": [0, 1, 2], "ld_clean": 1.0, "ld_corrupt": 0.0,
                "recovered": [[0.0] * 3], "ld_patched": [[0.0] * 3] * 2, "forwards": 6}, "target": 1, "contrast": 2},
     lambda w: w.sweep({"prompt": "x"})),
], ids=["lens rows", "lens positions", "lens rank a text", "attribution target", "attribution a number",
        "token id a text", "sweep rows"])
def test_a_malformed_why_reply_is_one_sentence_and_closes_the_connection(result, ask):
    from tfdebug.remote.errors import FrameError

    why, link, lost = _remote_why(result)
    with pytest.raises(FrameError) as caught:
        ask(why)
    assert "malformed" in str(caught.value) and "\n" not in str(caught.value)
    assert lost == [caught.value] and link.closed


def test_a_well_formed_why_reply_reads_with_its_words():
    grid = {"rows": ["tok.pos", "dec.0.ffn.resid"], "positions": [2], "cells": [[CELL], [{**CELL, "kl": "nan"}]]}
    why, link, lost = _remote_why({"grid": grid, "words": {"1": " cat"}})
    read = why.lens([-1])
    assert read.positions == [2] and read.cells[1][0].kl != read.cells[1][0].kl  # NaN crossed as a text
    assert why.word(1) == " cat" and why.word(2) is None and not link.closed and lost == []
