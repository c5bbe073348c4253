"""A pass's plan crosses in parts of bounded size: a served generation whose plan is many parts long arrives whole
and equal to the plan of the same generation here; parts out of order or past the stated size are refused."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("zmq")

from tfdebug.sessions.generation import GenerationSession, generation_inputs  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402
from tfdebug.models.sampling import DecodingSettings  # noqa: E402
from tfdebug.remote import wire  # noqa: E402
from tfdebug.remote.client import PUSHED, RemoteClient  # noqa: E402
from tfdebug.remote.errors import FrameError  # noqa: E402
from tfdebug.remote.protocol import CLIENT_MAX_BUFFER, CLIENT_MAX_HEADER, MAX_PLAN, decode, encode  # noqa: E402
from tfdebug.remote.session import RemoteSession  # noqa: E402

from tests.remote.served import served_here  # noqa: E402

PART = 4096  # bytes of JSON per part: a few stage entries each (the default is 4 MiB)
SETTINGS = DecodingSettings(max_new_tokens=3, stop_at_eos=False)


@pytest.fixture(scope="module")
def served():
    """A RemoteServer over 127.0.0.1 in this process (its own thread) whose plan parts are PART bytes."""
    with served_here(plan_part_bytes=PART) as server:
        yield server


@pytest.fixture()
def parts_taken(monkeypatch) -> list[int]:
    """How many entries each `plan` message a window took carried, in order."""
    taken: list[int] = []
    take = RemoteSession._take_plan_part

    def count(self, message):
        taken.append(len(message["entries"]))
        take(self, message)
    monkeypatch.setattr(RemoteSession, "_take_plan_part", count)
    return taken


def test_a_plan_larger_than_one_part_arrives_whole_in_order(served, parts_taken):
    server = served
    here = load_adapter("random")  # the served model is busy with its pass: the same model loaded again
    local = DebugSession(here, here.default_texts())
    session = RemoteSession.connect(server.address, server.token, timeout_s=3.0)
    try:
        entries = [wire.entry(c) for c in local.plan]
        assert len(json.dumps(entries)) > 4 * PART and len(parts_taken) >= 4  # it crossed in many parts
        assert session.plan.names() == local.plan.names() and session.pass_info["plan"] == entries
        assert [c.shape for c in session.plan] == [c.shape for c in local.plan]
        local.close()

        parts_taken.clear()
        generation = session.reopen(here.default_texts(), generate=SETTINGS)  # a new pass: its plan in parts too
        planned = GenerationSession(here, generation_inputs(here, here.default_texts()), SETTINGS)
        assert generation.is_generation and generation.plan.names() == planned.plan.names()
        assert len(parts_taken) > 1 and 1 + sum(parts_taken) <= len(planned.plan)
        assert generation.stepper.current.name == planned.plan.names()[0]
        planned.close()
        generation.close()
    finally:
        session.close()


def test_the_parts_of_a_plan_are_bounded_and_keep_every_entry():
    entries = [{"info": {"name": f"s{i}"}, "pad": "x" * (i % 50)} for i in range(500)]
    parts = wire.plan_parts(entries, 1000)
    assert [e for part in parts for e in part] == entries and len(parts) > 10
    assert all(len(json.dumps(p, separators=(",", ":"))) <= 1000 for p in parts)
    assert wire.plan_parts([], 1000) == [[]]  # a `pass` message always has its first part
    big = {"info": {"name": "big"}, "pad": "x" * 5000}
    assert wire.plan_parts([big, entries[0]], 1000) == [[big], [entries[0]]]  # too large alone: a part of its own


def window_reads(session: RemoteSession, kind: str, fields: dict) -> None:
    """A message from the server as the window's connection reads it: decoded and checked, then taken."""
    session._on_message(decode(encode(kind, fields), max_header=CLIENT_MAX_HEADER, max_buffer=CLIENT_MAX_BUFFER,
                               accept=PUSHED))


def test_hostile_plan_parts_are_refused(served):
    server = served
    session = RemoteSession(RemoteClient(server.address, server.token), hook=False)  # not connected: only reading
    here = load_adapter("random")
    entries = [wire.entry(c) for c in DebugSession(here, here.default_texts()).plan]
    pass_fields = {"pass": 7, "plan": entries[:3], "plan_total": len(entries),
                   "titles": {"layer": {}, "site": {}, "stack": {}}}
    window_reads(session, "pass", {"pass": pass_fields})
    assert session.plan.names() == []  # not whole yet: nothing is shown of it
    with pytest.raises(FrameError, match="does not follow on"):  # a part that skips entries
        window_reads(session, "plan", {"pass": 7, "from": 5, "entries": entries[5:8]})
    with pytest.raises(FrameError, match="does not follow on"):  # a part of another pass
        window_reads(session, "plan", {"pass": 8, "from": 3, "entries": entries[3:6]})
    with pytest.raises(FrameError, match="does not follow on"):  # more entries than the pass said
        window_reads(session, "plan", {"pass": 7, "from": 3, "entries": entries[3:] + entries[:2]})
    with pytest.raises(FrameError, match="must be"):  # not a list
        window_reads(session, "plan", {"pass": 7, "from": 3, "entries": "all"})
    with pytest.raises(FrameError, match="more than the"):  # a plan claiming more stages than a window takes
        window_reads(session, "pass", {"pass": {**pass_fields, "plan_total": MAX_PLAN + 1}})
    window_reads(session, "pass", {"pass": pass_fields})
    window_reads(session, "plan", {"pass": 7, "from": 3, "entries": entries[3:]})
    assert session.plan.names() == [e["info"]["name"] for e in entries]
    with pytest.raises(FrameError, match="does not follow on"):  # no pass is coming in parts now
        window_reads(session, "plan", {"pass": 7, "from": len(entries), "entries": []})
