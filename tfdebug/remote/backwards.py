"""Debug ▸ Backward over a served pass: the backward runs on the server, and its gradients become the served pass.

The window sends one `backward` request naming the objective (`sessions.backward.Objective`'s fields, each checked
by the protocol's schema and then against the pass: a position inside its tokens, token ids inside its
vocabulary). The server (`ServedBackward`) runs it where the model is (`sessions.gradient_session.backward_of`: the
peak is stated and checked against the server's own budget before anything runs) on a thread, sending its
heartbeat meanwhile, and then serves the gradients as its pass: a replay, stepped logits first. The window gets the
new pass's metadata (`pass`) and then a reply of two small fields, the loss and the first non-finite stage; the
gradients themselves stay on the server, and only the slices, tiles and statistics the views ask for cross, as for
any served pass.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import Message, number, wire_number
from tfdebug.sessions.backward import Objective
from tfdebug.sessions.source import Backwarded

if TYPE_CHECKING:
    from tfdebug.remote.handlers import ServedSession


class ServedBackward:
    """The server's side: runs the served pass's backward and serves its gradients as the pass."""

    def __init__(self, served: "ServedSession"):
        self.served = served

    def on_backward(self, m: Message):
        from tfdebug.sessions.gradient_session import backward_of, check_finished

        served = self.served
        session = served.session
        check_finished(session)  # a sentence before any work: a pass still running, a generation, gradients
        objective = Objective(m["kind"], m["position"], m["target"], m["contrast"], m["stage"] or "")
        box: dict = {}

        def work() -> None:
            try:
                box["gradients"] = backward_of(session, objective)
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
                "summary": summary_fields(gradients.summary())}, []


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
        return number()("loss", result["loss"]), first, summary_of_fields(result["summary"])
    try:
        fields = {"kind": objective.kind, "position": int(objective.position), "target": objective.target,
                  "contrast": objective.contrast}
        if objective.kind == "stage_sum":  # only then: a server before stage_sum knows no `stage` field
            fields["stage"] = objective.stage
        loss, first, summary = session.answer("backward", fields, read, timeout=timeout)
    finally:
        session._successor = None
    if not session.handed_over:
        raise FrameError("The server ran the backward but served no pass of its gradients.", id="remote.no_backward")
    successor.stepper.wait()
    return Backwarded(successor, loss, first, summary)


# ----- the summary (saliency per token and per frame, the parameters' gradient norms) on the wire, bounded -----
MAX_TOKENS = 2**16   # tokens a summary's saliency carries (a longer pass's is cut there)
MAX_LAYERS = 4096    # layers and modules of the parameters' norms
MAX_NAME = 256       # characters of a token's label or a parameter's name


def summary_fields(summary) -> dict:
    """A BackwardSummary as a reply's fields (numbers as `protocol.wire_number` writes them), cut to the bounds."""
    def pairs(items, limit):
        return [[str(a)[:MAX_NAME], wire_number(float(b))] for a, b in items[:limit]]
    return {"tokens": [str(t)[:MAX_NAME] for t in summary.tokens[:MAX_TOKENS]],
            "saliency": [[wire_number(float(a)), wire_number(float(b))] for a, b in summary.saliency[:MAX_TOKENS]],
            "layers": pairs(summary.layers, MAX_LAYERS), "largest": pairs(summary.largest, MAX_LAYERS),
            "modules": [[str(stack)[:MAX_NAME], layer, str(module)[:MAX_NAME], wire_number(float(norm))]
                        for stack, layer, module, norm in summary.modules[:MAX_LAYERS]],
            "frames": [[wire_number(float(a)), wire_number(float(b))] for a, b in summary.frames[:MAX_TOKENS]]}


def summary_of_fields(data):
    """A BackwardSummary read back from `summary_fields`' form, each value checked (ValueError, TypeError)."""
    from tfdebug.sessions.gradient_session import BackwardSummary

    real = number()

    def texts(value, limit):
        if not isinstance(value, list) or len(value) > limit or not all(isinstance(t, str) for t in value):
            raise TypeError("the summary's labels are not a list of texts")
        return list(value)

    def rows(value, first, limit):
        if not isinstance(value, list) or len(value) > limit:
            raise TypeError("the summary's rows are not a list")
        out = []
        for row in value:
            if not isinstance(row, list) or len(row) != 2:
                raise TypeError("a summary row is not a pair")
            out.append((first(row[0]), real("value", row[1])))
        return out

    def name(value):
        if not isinstance(value, str) or len(value) > MAX_NAME:
            raise TypeError("a summary row's name is not a text")
        return value

    def module_rows(value):  # [stack, layer or null, module, norm]; absent from a server before them
        if not isinstance(value, list) or len(value) > MAX_LAYERS:
            raise TypeError("the summary's module norms are not a list")
        out = []
        for row in value:
            if not isinstance(row, list) or len(row) != 4:
                raise TypeError("a module norm is not four fields")
            layer = row[1]
            if layer is not None and (isinstance(layer, bool) or not isinstance(layer, int) or layer < 0):
                raise TypeError("a module norm's layer is not an index")
            out.append((name(row[0]), layer, name(row[2]), real("value", row[3])))
        return out

    if not isinstance(data, dict):
        raise TypeError("the backward's summary is not an object")
    summary = BackwardSummary(texts(data["tokens"], MAX_TOKENS), rows(data["saliency"], lambda v: real("value", v),
                                                                         MAX_TOKENS),
                              rows(data["layers"], name, MAX_LAYERS), rows(data["largest"], name, MAX_LAYERS),
                              module_rows(data.get("modules", [])),
                              rows(data.get("frames", []), lambda v: real("value", v), MAX_TOKENS))
    if len(summary.tokens) != len(summary.saliency):
        raise ValueError("the saliency is not one pair per token")
    return summary
