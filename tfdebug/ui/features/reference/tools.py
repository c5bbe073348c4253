"""The reference pass: this input on this model in another dtype or on another device, for the window.

Breakpoints ▸ Conditions… "diverges from the reference pass" and File ▸ Compare With… "the same
input in another dtype or on another device" both read it. It is computed once per model,
input and placement, off the GUI thread (a Job running `crosscheck.fill_reference`), kept on
the host within the capture budget (tfdebug.core.reference says why), and one is held at a
time. Each new live pass gets it as its stepper's `reference` before the pass starts; when
the divergence condition stops the pass, the Compare dock shows the stage in both passes
(A the reference, B the pass on screen, A − B) and the Overview their difference per stage.
The pass's source takes it (`PassSource.set_reference`): a pass here compares with the one computed here, a pass
`tfdebug serve` runs has its reference on the server (told the dtype), where the condition is checked; a stop
there shows the table the server compares.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Signal

from tfdebug.sessions.crosscheck import Placement, fill_reference
from tfdebug.core.breakpoints import DIVERGES
from tfdebug.core.budget import format_bytes
from tfdebug.core.errors import TfdebugError
from tfdebug.core.reference import ReferencePass
from tfdebug.core.stepper import StepperEvent
from tfdebug.ui.i18n.language import error_phrase, said
from tfdebug.ui.state.messages import Message
from tfdebug.ui.widgets.placement import placement_text
from tfdebug.ui.workers.jobs import Job


class ReferenceTools(QObject):
    """The reference pass of the pass on screen, its Job, and what the divergence condition stops at."""

    ready = Signal(object)   # a ReferencePass was filled (or failed)
    _hit = Signal(object, object)  # (stepper, event) from the pass's thread: the divergence condition stopped it

    def __init__(self, compare_tools):
        super().__init__(compare_tools.window)
        self.compare = compare_tools
        self.ctl = compare_tools.ctl
        #: what the divergence condition compares with (set by the condition dialog)
        self.placement: Placement | None = None
        self.current: ReferencePass | None = None
        self.job: Job | None = None
        self._observed = None  # (stepper, its observer) of the pass the condition watches
        self._hit.connect(self._show_hit)
        self.ctl.session_changed.connect(self._attach)

    def _placement_error(self, placement: Placement) -> TfdebugError | None:
        """Why no reference can be had for the pass on screen in `placement`, or None (a served pass: the server
        computes it, and says why when it cannot)."""
        source = self.ctl.source
        if source is None or not source.capabilities.references:
            return TfdebugError(QCoreApplication.translate(
                "ReferenceTools", "A reference pass needs one live pass of a model: run a pass first (a snapshot "
                "or a generation has none)."))
        if source.runs_as(placement):
            return TfdebugError(QCoreApplication.translate(
                "ReferenceTools", "The reference would run as the pass on screen does ({placement}): choose "
                "another dtype, device, attention kernel or folder of weights.").format(placement=placement_text(placement)))
        return None

    def check(self, placement: Placement) -> None:
        """Raise the TfdebugError saying why the pass on screen cannot have a reference in `placement`."""
        error = self._placement_error(placement)
        if error is not None:
            raise error

    def ensure(self, placement: Placement) -> ReferencePass:
        """The reference pass of the pass on screen in `placement`: the one held when it matches, else a new
        one, computed now off the GUI thread. Raises a TfdebugError when there can be none."""
        self.check(placement)
        session = self.ctl.session
        adapter = session.adapter
        key = (adapter.name, tuple(sorted(session.texts.items())), placement)
        current = self.current
        if current is not None and current.key == key and current.error is None:
            return current
        if self.job is not None and self.job.running:
            self.job.cancel()  # the reference it computes is no longer wanted
        reference = self.current = ReferencePass(key, placement.describe())
        spec, texts, setting = adapter.name, dict(session.texts), self.ctl.capture_budget

        def work(job: Job):
            from tfdebug.ui.state.capture_budget import budget_bytes
            try:
                import torch
                reference.limit = budget_bytes(setting, torch.device("cpu"))  # "auto" asks the host: off the GUI thread
                fill_reference(reference, spec, texts, placement, check=job.check)
            except BaseException as exc:
                reference.fail(str(exc))  # a pass waiting for it goes on, checking nothing
                raise
            return reference
        self.job = Job(work, name="reference", describe_failure=lambda exc: said(lambda: QCoreApplication.translate(
            "ReferenceTools", "The reference pass failed; the details say why.")))
        self.job.finished.connect(self._filled)
        self.job.failed.connect(lambda text, details: self.ctl.say(Message("error", text, details,
                                                                            topic="reference")))
        self.job.start()
        self.ctl.inform(said(lambda: QCoreApplication.translate(
            "ReferenceTools", "Computing the reference pass ({placement}) off the window's thread…").format(
            placement=placement_text(placement))))
        return reference

    def _filled(self, reference: ReferencePass) -> None:
        held, kept, placement = format_bytes(reference.held_bytes), len(reference.captures), reference.key[2]
        if reference.not_kept:
            first, left = reference.not_kept[0], len(reference.not_kept)
            limit = format_bytes(reference.limit or 0)
            self.ctl.say(Message("warning", said(lambda: QCoreApplication.translate(
                "ReferenceTools", "The reference pass ({placement}) keeps {kept} stages ({held}) within the {limit} "
                "capture budget; the {left} others, from {first} on, are not compared.").format(
                placement=placement_text(placement), kept=kept, held=held, limit=limit, left=left, first=first)),
                topic="reference"))
        else:
            self.ctl.inform(said(lambda: QCoreApplication.translate(
                "ReferenceTools", "The reference pass ({placement}) is ready: {kept} stages, {held} on the host.").format(
                placement=placement_text(placement), kept=kept, held=held)))
        self.ready.emit(reference)

    # ----- the divergence condition ----------------------------------------------------------
    def set_condition_placement(self, placement: Placement | None) -> None:
        """Compare the live passes with a reference in `placement` (None: no divergence condition, and the
        reference held is let go)."""
        self.placement = placement
        if placement is None:
            if self.job is not None and self.job.running:
                self.job.cancel()
            self.current = None
        self._attach()

    def _attach(self) -> None:
        """Give the live pass its reference (the controller calls this before the pass starts): its source takes
        it, `ensure`d here for a pass here, computed where it runs for a served pass (told the dtype)."""
        stepper, source = self.ctl.stepper, self.ctl.source
        if stepper is None or source is None or not stepper.is_live:
            return
        wanted = self.placement is not None and any(b.value == DIVERGES for b in self.ctl.breakpoints.points)
        try:
            source.set_reference(self.placement if wanted else None, self.ensure)
        except TfdebugError as exc:
            self.ctl.say(Message("warning", error_phrase(exc), topic="reference"))
            return
        if self._observed is not None:
            self._observed[0].unsubscribe(self._observed[1])

        def observe(event: StepperEvent, stepper=stepper) -> None:
            """From the pass's thread: a stop by the divergence condition is shown on the GUI thread."""
            bp = event.breakpoint
            if event.type in ("paused", "finished") and event.reason == "breakpoint" and bp is not None \
                    and bp.value == DIVERGES:
                self._hit.emit(stepper, event)
        stepper.subscribe(observe)
        self._observed = (stepper, observe)

    def _show_hit(self, stepper, event: StepperEvent) -> None:
        """Compare the stages run so far with the reference: the Compare dock shows the stage stopped at
        in both passes and A − B; the Overview the difference of every stage so far. The pass's source compares
        them where the reference is held (`PassSource.compare`: here, or on a served pass's server)."""
        source, placement = self.ctl.source, self.placement
        if stepper is not self.ctl.stepper or source is None or placement is None:
            return
        side_a = said(lambda: QCoreApplication.translate("ReferenceTools", "the reference pass ({placement})").format(
            placement=placement_text(placement)))
        title = self.ctl.title or self.ctl.model_name
        side_b = said(lambda: QCoreApplication.translate("CompareDialog", "the pass on screen ({title})").format(
            title=title))
        bp = event.breakpoint

        def work(job: Job):
            return source.compare("placed", bp.threshold, bp.rtol, on_screen="b", dtype=placement.dtype)[0], None, [], None
        self.compare.start_job(work, bp.threshold, bp.rtol, side_a, side_b, event.capture.name, replace=True)
