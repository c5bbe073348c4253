"""Debug ▸ Backward (Ctrl+Shift+B): the finished pass's next-token loss backpropagated, and every stage's gradient
shown as a pass of its own, in backward order (the logits first), stepped with the same keys (F10, Shift+F10,
F5 to a breakpoint: a NaN or ±Inf condition stops at the first stage whose gradient went non-finite).

The backward runs on a worker (`sessions.backward.run_backward`); its gradients become a recorded pass
(`Stepper.replay`), so every panel shows them as it shows a forward's stages: heatmap, stats, overview. The
live pass is replaced (Run runs the forward again); the status bar says the loss and the first non-finite
stage, if any.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import said, shown_text
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.workers.jobs import Job

_RUNNING: list[Job] = []  # the backward job in flight (one at a time)


def _can_run(ctl: DebugController) -> bool:
    """A live pass that has run to its end, and no backward running."""
    source, stepper = ctl.source, ctl.stepper
    return (source is not None and source.model_here and source.session is not None and not source.is_generation
            and stepper is not None and stepper.is_live and not stepper.alive and not _RUNNING)


def gradient_pass(result) -> list:
    """The gradients of `result` (a BackwardPass) as captures in backward order, each described as ∂L/∂stage."""
    return result.gradient_captures()


@actions.action("tfdebug.debug.backward", QT_TRANSLATE_NOOP("actions", "Backward"), "Ctrl+Shift+B",
                QT_TRANSLATE_NOOP("actions", "Backpropagate the next-token loss of the finished pass and step "
                                             "through every stage's gradient, logits first"),
                enabled=_can_run, toolbar=False)
def backward(ctx: ActionContext) -> None:
    ctl = ctx.ctl
    if not _can_run(ctl):
        return
    from tfdebug.core.stepper import Stepper
    from tfdebug.io.recording import Recording
    from tfdebug.sessions.backward import run_backward

    from tfdebug.core.budget import default_capture_budget

    session, tokens, title = ctl.source.session, ctl.source.tokens, ctl.title
    plan = list(ctl.plan)
    job = Job(lambda _job: run_backward(session.adapter, session.prepared, plan=plan,
                                        budget=default_capture_budget(session.adapter.device)), name="backward")

    def done(result) -> None:
        captures = gradient_pass(result)
        recording = Recording(captures=captures, tokens=tokens, model_name=session.adapter.name,
                              device=str(session.adapter.device),
                              dtype=str(session.adapter.dtype).removeprefix("torch."),
                              backward=result.manifest_entry())
        loss = result.loss
        ctl.load_replay(Stepper.replay(captures), tokens, f"backward · {title}", recording)
        if result.first_nonfinite is not None:
            first = result.first_nonfinite
            ctl.error.emit(said(lambda: QCoreApplication.translate(
                "backward", "The gradient first went non-finite at {stage} (loss {loss:.5g}).").format(
                stage=first, loss=loss)))
        else:
            ctl.info.emit(said(lambda: QCoreApplication.translate(
                "backward", "Backward: loss {loss:.5g}; every stage's gradient, logits first (F10 steps, F5 runs "
                            "to a breakpoint).").format(loss=loss)))

    def finished(*_) -> None:
        _RUNNING.clear()
        ctl.state_changed.emit()

    job.finished.connect(done)
    job.failed.connect(lambda sentence, _details: ctl.error.emit(shown_text(sentence)))
    for ended in (job.finished, job.failed, job.cancelled_signal):
        ended.connect(finished)
    _RUNNING.append(job)
    ctl.state_changed.emit()
    ctl.info.emit(said(lambda: QCoreApplication.translate("backward", "Running the backward pass…")))
    job.start()

