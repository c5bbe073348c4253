"""Debug ▸ Backward (Ctrl+Shift+B): an objective of the finished pass (`objective_dialog`: the next-token loss
over the prompt, the loss at one position, a logit difference, or the sum of a stage) backpropagated, and every
stage's gradient shown as a pass of its own, in backward order (the objective's stage first: the logits, or the
stage summed), stepped with the same keys (F10, Shift+F10, F5 to a breakpoint: a NaN or ±Inf condition stops at
the first stage whose gradient went non-finite).

The window asks its pass source (`sessions.source.PassSource.backward`), which runs the backward where the model
is: in this process on a worker for a local pass, on the server for a served one (`remote.backwards`). Either way
the gradients come back as a pass source of their own, replacing the pass on screen (Run runs a forward again),
so every panel shows them as it shows a forward's stages: heatmap, stats, overview. Since they replace it, the pass's
captures are let go before the backward runs (it runs a forward of its own), and its peak is checked against the
budget with them counted as free. The status bar says the stated peak, the loss and the first non-finite stage, if any; the Backward dock (`summary_panel`) shows each token's saliency and the
parameters' gradient norms.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.features.backward.summary_panel import show_in_overview
from tfdebug.core.budget import format_bytes
from tfdebug.core.errors import TfdebugError
from tfdebug.ui.i18n.language import error_phrase, phrase_text, said, shown_text
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.workers.jobs import Job

_RUNNING: list[Job] = []  # the backward job in flight (one at a time)


def _can_run(ctl: DebugController) -> bool:
    """A pass of a model that has run to its end, and no backward running."""
    source = ctl.source
    return source is not None and not _RUNNING and source.can_backward()


@actions.action("tfdebug.debug.backward", QT_TRANSLATE_NOOP("actions", "Backward"), "Ctrl+Shift+B",
                QT_TRANSLATE_NOOP("actions", "Backpropagate an objective of the finished pass (the next-token "
                                             "loss, the loss at a position, a logit difference or a stage's "
                                             "sum) and step through every stage's gradient in backward order"),
                enabled=_can_run, toolbar=False,
                menu="debug", group=5, order=0)
def backward(ctx: ActionContext) -> None:
    """Ask for the objective (the window's last choice filled in); OK runs the backward, Cancel nothing."""
    ctl = ctx.ctl
    if not _can_run(ctl):
        return
    from tfdebug.ui.features.backward.objective_dialog import Choice, ObjectiveDialog, logits_shape, token_resolver

    window, source = ctx.window, ctl.source
    count, vocabulary = logits_shape(ctl.plan)
    dialog = ObjectiveDialog(count, vocabulary, token_resolver(source), window.backward_panel.choice or Choice(),
                             ctl.plan.names(), ctl.selected_stage or "", window)
    window.dialogs["backward"] = dialog  # tests reach the open dialog here

    def accepted() -> None:
        window.backward_panel.choice = dialog.choice()  # remembered for the window's session
        if ctl.source is source and _can_run(ctl):
            _run(ctx, dialog.objective)
    dialog.accepted.connect(accepted)
    dialog.finished.connect(lambda _result: dialog.deleteLater())
    dialog.open()


def _run(ctx: ActionContext, objective) -> None:
    """The backward of the pass on screen under `objective`, on a worker; its gradients then replace the pass.

    The backward runs a forward of its own, and its gradients replace the pass on screen, so the pass's captures
    are let go before it runs and its peak is checked with them counted as free (`PassSource.make_room_for_backward`).
    Refused, nothing is let go and the pass is shown again as it was; once they are let go, a backward that fails
    says so and that Run (Ctrl+Return) runs the pass again."""
    ctl = ctx.ctl
    source = ctl.source
    # nothing on the display worker may hold the pass's tensors while they go (what it read ahead included)
    ctl.display.cancel()
    try:
        peak = source.make_room_for_backward()
    except TfdebugError as exc:
        ctl.shown.show_current()  # the stage on screen again, with what the cancelled jobs were computing
        why = error_phrase(exc)
        ctl.fail(said(lambda: QCoreApplication.translate(
            "backward", "{why} The pass stays on screen as it was.").format(why=phrase_text(why))))
        return
    if peak is not None:
        ctl.shown.forget()  # its tensors are gone: nothing is shown until the gradients' first stage
    job = Job(lambda _job: source.backward(objective), name="backward")

    def done(result) -> None:
        if ctl.source is not source:  # the window went on to another pass meanwhile
            result.source.close()
            return
        loss, stated = result.loss, result.peak
        ctl.show_pass(result.source)
        window = ctx.window
        # each token's saliency (over the picture the forward pass read too), the parameters' norms
        window.backward_panel.show_summary(result.summary, source.image,
                                            getattr(ctl.adapter, "stack_titles", None))
        show_in_overview(window, result.summary)  # the parameters' norms per layer, at each layer's first gradient
        window.show_dock_within(window.docks["backward"])
        if result.first_nonfinite is not None:
            first = result.first_nonfinite
            ctl.fail(said(lambda: QCoreApplication.translate(
                "backward", "The gradient first went non-finite at {stage} (loss {loss:.5g}).").format(
                stage=first, loss=loss)))
        elif stated is not None:
            size = format_bytes(stated)
            ctl.inform(said(lambda: QCoreApplication.translate(
                "backward", "Backward: loss {loss:.5g}, peak stated before it ran {peak}; every stage's gradient in "
                            "backward order (F10 steps, F5 runs to a breakpoint).").format(loss=loss, peak=size)))
        else:
            ctl.inform(said(lambda: QCoreApplication.translate(
                "backward", "Backward: loss {loss:.5g}; every stage's gradient in backward order (F10 steps, F5 runs "
                            "to a breakpoint).").format(loss=loss)))

    def failed(sentence, _details) -> None:
        if peak is None or ctl.source is not source:
            ctl.fail(shown_text(sentence))
            return
        ctl.fail(said(lambda: QCoreApplication.translate(
            "backward", "{why} The pass's captures were let go to make room for the backward: Run (Ctrl+Return) runs "
                        "the pass again.").format(why=shown_text(sentence))))

    def finished(*_) -> None:
        _RUNNING.clear()
        ctl.announce_state()

    job.finished.connect(done)
    job.failed.connect(failed)
    for ended in (job.finished, job.failed, job.cancelled_signal):
        ended.connect(finished)
    _RUNNING.append(job)
    ctl.announce_state()
    if peak is None:
        ctl.inform(said(lambda: QCoreApplication.translate("backward", "Running the backward pass…")))
    else:
        size = format_bytes(peak)
        ctl.inform(said(lambda: QCoreApplication.translate(
            "backward", "Running the backward pass (peak stated before it runs: {peak}); the pass's captures were let "
                        "go to make room for it…").format(peak=size)))
    job.start()
