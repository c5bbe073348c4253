"""Loading a pass and checking it against the unmodified model, off the UI thread.

`Loader` is a part the controller owns (`ctl.loader`): Run loads (or reuses) the model and checks
the texts in a `Job`, stops the pass on screen only then, plans the new pass in a second
`Job`, and shows it; when a finished pass came from an adapter that taps someone else's
model, a third `Job` compares its output with the unmodified model's. Opening a snapshot
reads and checks the file the same way (`load_in_background`). It holds no Qt object of its own:
what it needs of the window it reads from, and tells, the screen it is handed (a `LoaderScreen`: the controller).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from PySide6.QtCore import QCoreApplication

from tfdebug.core.errors import TfdebugError
from tfdebug.core.stepper_like import StepperLike
from tfdebug.core.view import RunInputs
from tfdebug.ui.models.run import RunModel
from tfdebug.ui.i18n.language import phrase_text, said, verification_text
from tfdebug.ui.state.messages import Message
from tfdebug.ui.workers.jobs import Job


def _failure_sentence(exc: BaseException):
    return said(lambda: QCoreApplication.translate("Loader", "The model could not prepare this pass. Check the "
                                              "input and the model, then press Run again."))


class LoadState(Protocol):
    """Whether a model is loading (`busy`): what `Stepping` and `ShownStage` read of the `Loader`."""

    @property
    def busy(self) -> bool:
        """A model is loading (or a pass is being opened)."""
        ...


class _Keeps(Protocol):
    def policy(self) -> Any: ...


class LoaderScreen(Protocol):
    """What `Loader` reads of the window and tells it (the controller is one): the run settings (`run`: when a
    finished pass is checked), what Run starts (`inputs`, `set_inputs`), the next pass's decoding settings (`generation`, None: one pass), capture budget setting and
    keep choice (`keep.policy()`), the stepper and live session on screen, the message bar (`say`, `inform`) and
    the announcements of a load (`announce_busy`) and of any change actions re-check on (`announce_state`)."""

    run: RunModel

    @property
    def inputs(self) -> RunInputs:
        """What Run starts."""
        ...

    @property
    def generation(self) -> Any:
        """The next run's decoding settings (a generation), or None: one pass."""
        ...

    @property
    def capture_budget(self) -> str:
        """The next pass's capture budget setting ("auto", "off" or MB as text)."""
        ...

    @property
    def keep(self) -> _Keeps:
        """Which stages the next pass keeps when not all fit."""
        ...

    @property
    def stepper(self) -> StepperLike | None:
        """The stepper on screen, or None."""
        ...

    @property
    def session(self) -> Any:
        """The live session on screen, or None."""
        ...

    def set_inputs(self, inputs: RunInputs) -> None:
        """What the next Run starts."""
        ...

    def set_session(self, session: Any) -> None:
        """Put a planned live session on screen."""
        ...

    def say(self, message: Message) -> None:
        """Show `message` in the message bar."""
        ...

    def inform(self, content: str) -> None:
        """Show a passing notice."""
        ...

    def announce_busy(self, busy: bool) -> None:
        """A model started or stopped loading."""
        ...

    def announce_state(self) -> None:
        """Something actions re-check on changed."""
        ...


class Loader:
    """Run, its loading jobs and the verification of a finished pass; `busy` while a model loads.

    `screen` (a `LoaderScreen`) holds what Run starts and the settings of the next pass, and the pass on
    screen; a planned pass is put on it (`set_session`), and what happened is said and announced to it."""

    def __init__(self, screen: LoaderScreen):
        self._screen = screen
        self.busy = False
        self.load_job: Job | None = None
        self.verification = None  # how the last finished live pass compares with the unmodified model
        self.unverified = ""  # why the last finished live pass was not checked (its policy, the memory), or ""
        self._adapter_cache: tuple[tuple, object] | None = None
        self._failed: Callable[[str], None] | None = None  # run()'s `failed`, for the pass being loaded

    def set_busy(self, busy: bool) -> None:
        """A model is loading (or a pass is being opened), or no longer."""
        self.busy = busy
        self._screen.announce_busy(busy)
        self._screen.announce_state()

    def run(self, inputs: RunInputs | None = None, failed: Callable[[str], None] | None = None) -> None:
        """Start a pass on `inputs` (default: the input bar's), from any state.

        Off the UI thread the model is loaded (or reused) and the texts are checked; only
        then is the pass on screen stopped (its captured stages stay viewable) and the new
        pass planned, opening paused at its first stage. When loading or checking fails,
        the pass on screen is untouched and the input bar keeps the texts to correct; `failed`,
        when given, is then called with the sentence saying why (once, after the message bar has it).
        """
        if self.busy:
            return
        self._failed = failed
        inputs = inputs or self._screen.inputs
        self._screen.set_inputs(inputs)
        self.set_busy(True)
        cache = self._adapter_cache
        self._start_job(lambda job: self._load(job, inputs, cache), self._on_loaded)

    def _start_job(self, work, on_finished) -> None:
        job = Job(work, name="load", describe_failure=_failure_sentence)
        job.finished.connect(on_finished)
        job.failed.connect(self._on_load_failed)
        job.cancelled_signal.connect(lambda: self.set_busy(False))
        self.load_job = job
        job.start()

    @staticmethod
    def _load(job: Job, inputs: RunInputs, cache):
        """(cache entry, adapter, texts): the model loaded or reused, the texts checked by preparing them."""
        from tfdebug.adapters.registry import load_adapter

        # The CLI's --dtype/--device-map path: the same load_adapter call with the window's choices.
        key = (inputs.model, inputs.device, inputs.dtype, inputs.device_map)
        adapter = cache[1] if cache and cache[0] == key else load_adapter(
            inputs.model, inputs.device, dtype=inputs.dtype, device_map=inputs.device_map)
        job.check()
        adapter.chat = inputs.chat and adapter.can_chat()  # the Chat toggle (a model without a template ignores it)
        fields = {f.key for f in adapter.inputs}
        texts = {k: v for k, v in inputs.texts.items() if k in fields}
        if fields - set(texts):  # another model's fields: this model's first preset fills those it lacks
            texts = {**adapter.default_texts(), **texts}
        if inputs.batch:  # more rows: the tokenizer pads them into one batch (a typed error here, too)
            first = adapter.inputs[0].key
            return (key, adapter), adapter, adapter.prepare_batch([texts, *({**texts, first: t} for t in inputs.batch)])
        adapter.prepare(texts)  # a typed error here leaves the pass on screen alone
        return (key, adapter), adapter, texts

    def _on_loaded(self, result) -> None:
        """Plan the pass of `result` (cache entry, adapter, texts or a prepared batch) off the UI thread."""
        cache_entry, adapter, texts = result
        # This Run loaded the model (seconds): one more plan is cheap beside that.
        loaded = self._adapter_cache is None or self._adapter_cache[1] is not adapter
        self._adapter_cache = cache_entry
        # The new pass may use the same model: the running one's hooks must be gone before planning.
        screen = self._screen
        stepper = screen.stepper
        if stepper is not None and stepper.is_live and stepper.alive:
            stepper.stop()
            screen.announce_state()

        settings, budget_setting, keep = screen.generation, screen.capture_budget, screen.keep.policy()

        def plan(job: Job):
            from tfdebug.adapters.base import Prepared
            from tfdebug.ui.state.capture_budget import budget_bytes
            budget = budget_bytes(budget_setting, adapter.device)  # "auto" asks the device: off the GUI thread
            batch = texts if isinstance(texts, Prepared) else None
            if settings is not None and batch is not None:
                raise TfdebugError(QCoreApplication.translate(
                    "Loader", "Generate runs one text at a time: empty the batch (Batch…) to generate."))
            if settings is not None:  # a generation: every step's pass under one stepper
                from tfdebug.sessions.generation import GenerationSession, generation_inputs
                return GenerationSession(adapter, generation_inputs(adapter, texts), settings, max_capture_bytes=budget,
                                         keep=keep)
            from tfdebug.sessions.session import DebugSession
            if batch is not None:
                return DebugSession(adapter, prepared=batch, max_capture_bytes=budget, keep=keep)
            session = DebugSession(adapter, texts, max_capture_bytes=budget, keep=keep)
            if loaded:  # a second length planned now lets the next Runs of other lengths grow their plans
                session.plan_another_length()
            return session
        self._start_job(plan, self._on_planned)

    def _on_planned(self, session) -> None:
        self._failed = None
        self.set_busy(False)
        self.check_in_pass(session)
        self._screen.set_session(session)

    def check_in_pass(self, session) -> None:
        """How `session`'s pass is checked as it runs (`DebugSession.in_pass`, by `sessions.peak.check_mode`; a
        generation's is not): its attention alone where the run settings' `verify` is "attention", or "auto" with
        no room for the second pass now (`sessions.peak.check_room_now`); where the second pass runs, by it alone
        (it runs in the background while the user steps, so the pass they wait for carries no check: "after");
        not at all for "never". Set when the pass is put on screen: a new choice applies from the next Run."""
        from tfdebug.sessions.peak import check_mode, check_room_now

        policy = self._screen.run.verify
        fits = policy != "auto" or check_room_now(session) is None
        session.in_pass = check_mode(policy, fits, session.adapter.checks_in_pass, waited=False)

    def _on_load_failed(self, sentence: str, details: str) -> None:
        self.set_busy(False)
        # The input bar keeps what the user typed, to be corrected (the pass on screen is untouched).
        self._screen.say(Message("error", sentence, details, topic="run"))
        failed, self._failed = self._failed, None
        if failed is not None:
            failed(sentence)

    def load_in_background(self, work: Callable[[Job], object], on_loaded: Callable[[object], None],
                           describe_failure: Callable[[BaseException], object]) -> bool:
        """Other reading before a pass goes on screen (a snapshot), done as a model load is: off
        the UI thread, busy meanwhile, abandoned when the window closes, a failure said in the
        message bar with the pass on screen untouched. False (nothing started) while busy."""
        if self.busy:
            return False
        self._failed = None
        self.set_busy(True)
        job = Job(work, name="open", describe_failure=describe_failure)

        def loaded(result) -> None:
            self.set_busy(False)
            on_loaded(result)
        job.finished.connect(loaded)
        job.failed.connect(self._on_load_failed)
        job.cancelled_signal.connect(lambda: self.set_busy(False))
        self.load_job = job
        job.start()
        return True

    def abandon(self, timeout: float) -> None:
        """The window is closing: abandon a model load (joined, so no thread sits inside torch at exit)."""
        job = self.load_job
        if job is not None and job.running:
            job.cancel()
            job.wait(timeout)

    def confirm_plan(self, session, captures) -> None:
        """A finished live pass against the plan the window showed it with: a plan grown from other lengths' that the
        pass did not follow (`DebugSession.confirm_plan`) is said; the next Runs of the model plan each length."""
        confirm = getattr(session, "confirm_plan", None)  # a generation plans its steps from its own first two
        if confirm is not None and not confirm(captures):
            self._screen.inform(said(lambda: QCoreApplication.translate(
                "Loader", "This pass's stages differ from the plan grown from other lengths: the next Run of each "
                          "length plans its own.")))

    def verify(self, session, output) -> None:
        """Compare the finished pass's output with the unmodified model's, off the UI thread.

        Adapters that tap someone else's model say how close the two are; a mismatch is an
        error in the window, a match a notice and the `verification` the status bar shows. The caller asks
        only of a pass whose source `reruns_here` (a served pass is not checked: its server runs no check, and
        Debug ▸ Check Against the Model says so; a generation's steps are checked against generate() in the tests).

        Whether it runs is the run settings' `verify`: "never" leaves it out, "auto" leaves it out where its memory
        is not free now (`sessions.peak.check_room_now`), "always" runs it; one left out is said, and the status bar
        says "not verified". "attention", and "auto" where the second pass had no room when the pass started, take
        the verdict the pass found as it ran (`check_in_pass`); where that check could not follow the model's
        attention, "attention" is "auto".
        """
        from tfdebug.adapters.base import ModelAdapter
        from tfdebug.sessions.peak import IN_PASS, check_room_now

        if type(session.adapter).verify is ModelAdapter.verify:
            return  # written with taps: nothing to compare against
        policy = self._screen.run.verify
        short = check_room_now(session) if policy in ("auto", "attention") else None
        if session.in_pass in IN_PASS and (policy == "attention" or short is not None):
            verdict = session.verify_in_pass()  # found as the pass ran: nothing more runs
            if verdict is not None:
                self._verified(session, verdict)
                return
        if policy == "attention":
            policy = "auto"  # a site the check in the pass cannot follow: the second pass where it fits
        if policy == "never" or short is not None:
            self.unverified = said(lambda: QCoreApplication.translate(
                "Loader", "not verified: the check against the unmodified model is off (Debug ▸ Check Against the "
                          "Model)")) if short is None else said(lambda: phrase_text(short))
            self._screen.inform(self.unverified)
            self._screen.announce_state()
            return
        box = [output]  # handed over once: the finished job (kept a while by Qt) does not hold the pass's logits
        job = Job(lambda job: session.verify(box.pop()), name="verify",
                  describe_failure=lambda exc: said(lambda: QCoreApplication.translate(
                      "Loader", "The check against the unmodified model could not run.")))
        job.finished.connect(lambda result, s=session: self._verified(s, result))
        job.failed.connect(lambda sentence, details: self._screen.say(Message("error", sentence, details)))
        job.start()

    def forget_verdict(self) -> None:
        """What was said of the last finished pass's check no longer applies (a new pass, a Restart)."""
        self.verification, self.unverified = None, ""

    def _verified(self, session, verification) -> None:
        if session is not self._screen.session or verification is None:
            return
        self.verification = verification
        if verification.ok:
            self._screen.inform(said(lambda: verification_text(verification)))
        else:
            self._screen.say(Message("error", said(lambda: QCoreApplication.translate(
                "Loader", "The tapped model's output differs from the unmodified model's: {what}").format(
                what=verification_text(verification))), topic="verify"))
        self._screen.announce_state()
