"""Debug ▸ Backward over a served pass: the backward runs on the server, and its gradients become the served pass.

As over a local pass, the window first asks the server to make room (`make_room`, `request_room`): the server
states the backward's peak and checks it against its own budget with the finished pass's captures counted as free
(`sessions.gradient_session.make_room`), refuses in one sentence when it does not fit (nothing is let go), and
else lets the pass's captures go and answers the stated peak. The window then sends one `backward` request naming
the objective (`sessions.backward.Objective`'s fields, each checked by the protocol's schema and then against the
pass: a position inside its tokens, token ids inside its vocabulary). The server (`ServedBackward`) runs it where
the model is (`sessions.gradient_session.backward_of`, against the budget `make_room` found; without a
`make_room` first, against its default budget) on a thread, sending its heartbeat meanwhile, and then serves the
gradients as its pass: a replay, stepped logits first. The window gets the new pass's metadata (`pass`) and then a
reply of small fields, the loss, the first non-finite stage, the stated peak and the summary; the gradients
themselves stay on the server, and only the slices, tiles and statistics the views ask for cross, as for any
served pass.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from tfdebug.io import backward_summary
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import Message, integer, number, optional, wire_number
from tfdebug.sessions.backward import Objective
from tfdebug.sessions.source import Backwarded

if TYPE_CHECKING:
    from tfdebug.remote.handlers import ServedSession


class ServedBackward:
    """The server's side: runs the served pass's backward and serves its gradients as the pass."""

    def __init__(self, served: "ServedSession"):
        self.served = served
        #: (the pass, the budget) the last `make_room` checked that pass's backward against, for its backward
        self.room: tuple[int, int | None] | None = None

    def on_make_room(self, _m: Message):
        """The backward's peak stated and checked with the pass's captures counted as free, which then go."""
        from tfdebug.sessions.gradient_session import make_room

        room = make_room(self.served.session)
        self.room = (self.served.pass_id, room.budget)
        return {"peak": room.peak}, []

    def on_backward(self, m: Message):
        from tfdebug.sessions.gradient_session import backward_of, check_finished

        served = self.served
        session = served.session
        check_finished(session)  # a sentence before any work: a pass still running, a generation, gradients
        objective = Objective(m["kind"], m["position"], m["target"], m["contrast"], m["stage"] or "")
        room, self.room = self.room, None  # another pass's room counts for nothing here
        budget = room[1] if room is not None and room[0] == served.pass_id else None
        box: dict = {}

        def work() -> None:
            try:
                box["gradients"] = backward_of(session, objective, budget)
            except BaseException as exc:  # raised again on the server's thread, where `handle` says it
                box["error"] = exc
        thread = threading.Thread(target=work, name="tfdebug-backward", daemon=True)
        thread.start()
        while thread.is_alive():
            thread.join(0.1)
            served.keepalive()  # the window waits; it does not take the server for gone
        if "error" in box:
            raise box["error"]
        gradients = box["gradients"]
        served.show(gradients)
        return {"loss": wire_number(gradients.loss), "first_nonfinite": gradients.first_nonfinite,
                "peak": gradients.peak, "summary": summary_fields(gradients.summary())}, []


#: a stated peak as a reply carries it: bytes, or None where none was stated
_PEAK = optional(integer(0, 2**62))


def request_room(session) -> int:
    """The window's side of `make_room`: the server states the backward's peak of `session`'s (a RemoteSession's)
    finished pass and lets its captures go; the stated peak in bytes. The server's refusal is raised here and
    leaves the pass as it was."""
    return session.answer("make_room", {}, lambda result, _: integer(0, 2**62)("peak", result["peak"]))


def request_backward(session, objective: Objective, timeout: float = 3600.0) -> Backwarded:
    """The window's side: ask the server of `session` (a RemoteSession whose pass has run to its end) for the
    backward under `objective`; its gradients come back as a new RemoteSession over the same connection (this
    one then closes without detaching). The server's refusal is raised here and leaves the pass as it was."""
    from tfdebug.remote.session import RemoteSession

    successor = RemoteSession(session.client, hook=False)
    session._successor = successor

    def read(result, _):
        first = result["first_nonfinite"]
        if first is not None and (not isinstance(first, str) or first not in successor.plan.names()):
            raise ValueError("the first non-finite gradient is not a stage of the served backward")
        return (number()("loss", result["loss"]), first, summary_of_fields(result["summary"]),
                _PEAK("peak", result.get("peak")))
    try:
        fields = {"kind": objective.kind, "position": int(objective.position), "target": objective.target,
                  "contrast": objective.contrast}
        if objective.kind == "stage_sum":  # only then: a server before stage_sum knows no `stage` field
            fields["stage"] = objective.stage
        loss, first, summary, peak = session.answer("backward", fields, read, timeout=timeout)
    finally:
        session._successor = None
    if not session.handed_over:
        raise FrameError("The server ran the backward but served no pass of its gradients.", id="remote.no_backward")
    successor.stepper.wait()
    return Backwarded(successor, loss, first, summary, peak)


# ----- the summary (saliency per token and per frame, the parameters' gradient norms) on the wire, bounded -----
# (`io.backward_summary`, bounded: the form a saved backward's manifest carries too)
def summary_fields(summary) -> dict:
    """A BackwardSummary as a reply's fields (numbers as `protocol.wire_number` writes them), cut to the bounds."""
    return backward_summary.summary_fields(summary)


def summary_of_fields(data):
    """A BackwardSummary read back from `summary_fields`' form, each value checked (ValueError, TypeError)."""
    from tfdebug.io.backward_summary import summary_parts
    from tfdebug.sessions.gradient_session import BackwardSummary

    return BackwardSummary(**summary_parts(data))
