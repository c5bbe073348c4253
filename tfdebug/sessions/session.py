"""DebugSession: one adapted model, one set of input texts, the plan of its pass and a Stepper over it.

The GUI wraps a session's stepper events in Qt signals; the CLI records with it headless.
Nothing here knows which kind of model it runs: the adapter says.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import torch

from tfdebug.adapters.base import ModelAdapter, Prepared, Verification
from tfdebug.core.budget import FIRST_FIT, CaptureBudget, CaptureEstimate, KeepPolicy, estimate_capture
from tfdebug.core.errors import UnknownStageError
from tfdebug.core.layout import PassLayout, build_layout
from tfdebug.core.memory import release_freed_memory
from tfdebug.core.model_lock import forward_lock
from tfdebug.core import plan_growth
from tfdebug.core.plan import Plan, plan_pass
from tfdebug.core.recipes import materialized
from tfdebug.core.recorder import Capture, Recorder, check_patterns, matches
from tfdebug.core.stages import StageInfo, token_labels
from tfdebug.core.stepper import Stepper
from tfdebug.sessions.peak import IN_PASS


class SessionTexts:
    """What a session tells about its inputs, shared by a single pass and a generation.

    Needs `adapter`, `prepared` and a `tokens` mapping of stream -> token strings.
    """

    adapter: ModelAdapter
    prepared: Prepared

    if TYPE_CHECKING:  # each session's own, for the type checker
        @property
        def tokens(self) -> dict[str, list[str]]: ...

    @property
    def texts(self) -> dict[str, str]:
        """The typed texts per input field."""
        return dict(self.prepared.texts)

    @property
    def unknown_words(self) -> list[str]:
        """The words the tokenizer did not know."""
        return list(self.prepared.unknown)

    @property
    def notes(self) -> list[str]:
        """What the adapter wants the user to know about these inputs (a typed special token …)."""
        return list(self.prepared.notes)

    @property
    def title(self) -> str:
        """The texts as one line, for a window title: 'I love you → 我 爱 你'."""
        return " → ".join(t for t in self.prepared.texts.values() if t) or self.adapter.name

    def axis_labels(self, info: StageInfo, axis: int) -> list[str] | None:
        """Token strings along `axis` of a stage's tensor when that axis indexes tokens, else None."""
        if not 0 <= axis < len(info.axes):
            return None
        which = info.tokens.get(info.axes[axis])
        return token_labels(self.tokens, which) if which else None


# Verdicts of the check against the unmodified model, per model (weakly held) and per
# input, dtype and device: a Restart, or a new session on the same texts, reuses it.
_VERDICTS: "weakref.WeakKeyDictionary[torch.nn.Module, dict[tuple, Verification | None]]" = \
    weakref.WeakKeyDictionary()
# Checks running in the background, so a process can let them finish before it exits (a daemon
# thread stopped inside torch's C++ code at exit aborts the interpreter): the interpreter waits for them
# at exit (`atexit` runs while daemon threads still run).
_CHECKS: "weakref.WeakSet[threading.Thread]" = weakref.WeakSet()


def wait_for_checks(timeout: float | None = None) -> None:
    """Wait until every check against the unmodified model started in the background has finished."""
    for thread in list(_CHECKS):
        if thread is not threading.current_thread():
            thread.join(timeout)


atexit.register(wait_for_checks)


def input_tensors(prepared: Prepared) -> list:
    """The tensors a prepared input hands the model (what sizes its forward)."""
    return [v for v in (*prepared.args, *prepared.kwargs.values()) if isinstance(v, torch.Tensor)]


def _cut(values):
    """`values` (a prepared input's args or kwargs) with each tensor one token shorter (its last axis)."""
    def cut(v):
        return v[..., :-1] if isinstance(v, torch.Tensor) else v
    return {k: cut(v) for k, v in values.items()} if isinstance(values, dict) else tuple(cut(v) for v in values)


def plan_context(adapter: ModelAdapter, prepared: Prepared) -> str:
    """How the adapter runs a prepared input besides its tensors (its kind, where each tensor goes, every
    argument that is not a tensor): two inputs alike in these and in their tensors (tfdebug.core.plan.plan_key:
    shapes, dtypes, padded positions) share a plan. The texts themselves are not part of it."""
    def described(value) -> str:
        return "tensor" if isinstance(value, torch.Tensor) else repr(value)
    return repr((type(adapter).__qualname__, [described(v) for v in prepared.args],
                 sorted((k, described(v)) for k, v in prepared.kwargs.items())))


class DebugSession(SessionTexts):
    """Texts ready to run through an adapter's model, stage by stage or all at once.

    `stages` (glob patterns) filters what is captured; `max_capture_bytes` is a capture
    budget (tfdebug.core.budget): `capture_estimate()` says before a pass what it will
    hold and drop, and both the stepper and `capture_all` keep within it; `keep` (a
    KeepPolicy) chooses what stays when not all fits (default: forward order, first fit).

    The plan of the pass is made without a real forward where that is cheaper
    (`planning` "auto", or "meta" / "real", see tfdebug.core.plan.plan_pass;
    `plan.method` says how it was made), so a pass costs one forward. "lazy" plans only
    when first asked: a `capture_all` before that makes the plan from its own pass. The check against the unmodified model runs after a
    pass, in the background (`capture_all`), once per model, input, dtype and device.
    `prepared` hands in inputs already prepared (the bench builds its own token ids).
    """

    def __init__(self, adapter: ModelAdapter, texts: Mapping[str, str] | None = None,
                 stages: Sequence[str] | None = None, max_capture_bytes: int | None = None,
                 planning: str = "auto", prepared: Prepared | None = None, keep: KeepPolicy = FIRST_FIT):
        self.adapter = adapter
        self.stages = stages
        #: how the pass is checked in the pass, where the adapter can (`ModelAdapter.checks_in_pass`; the modes of
        #: `peak.check_mode`): "whole" (each layer's attention against the model's own function as it runs, the
        #: whole check after it, `verify`, comparing the rest with a second forward), "attention" (that check alone,
        #: `verify_in_pass`), "after" (none in the pass: the whole check compares the probabilities too) or ""
        self.in_pass = "whole"
        self.max_capture_bytes = max_capture_bytes
        self.keep = keep
        self._estimate: tuple[tuple, CaptureEstimate] | None = None
        self.prepared: Prepared = prepared if prepared is not None else adapter.prepare(
            dict(texts) if texts is not None else adapter.default_texts())
        self._planning = planning
        self._plan: Plan | None = None
        self._layout: PassLayout | None = None
        self._stepper: Stepper | None = None
        if planning != "lazy" or stages is not None or keep.focus is not None:
            # Planned now: a typo in a filter, or an input the model refuses, is an error here, not at the first step.
            check_patterns(self.plan.names(), stages)
            if keep.focus is not None and keep.focus not in self.plan.names():
                raise UnknownStageError("The capture budget's focus {stage} is not a stage of this pass; see "
                                        "`tfdebug stages` for the names.", id="budget.unknown_focus", stage=keep.focus)
        self._verification: Verification | None = None
        #: seconds the last check against the unmodified model took (0.0 when a verdict was reused)
        self.verification_seconds: float | None = None
        self._verifying: threading.Thread | None = None

    def forward(self) -> Any:
        """One tapped forward of this session's input (the check in the pass on when `in_pass`)."""
        if self.in_pass not in IN_PASS or not self.adapter.checks_in_pass:
            return self.adapter.forward(self.prepared)
        self.adapter.check_in_pass(self.in_pass)  # for this session's pass only: the adapter may serve other work
        try:
            return self.adapter.forward(self.prepared)
        finally:
            self.adapter.check_in_pass("")

    @property
    def plan(self) -> Plan:
        """The stages of the pass in order (shapes, no tensors), made when first asked for.

        A `capture_all` that runs before anyone asked makes it from its own pass: no extra forward."""
        if self._plan is None:
            self._plan = self._plan_of(self.prepared, self.forward)
        return self._plan

    def _plan_of(self, prepared: Prepared, run: Callable[[], object]) -> Plan:
        """`plan_pass` of one call of `run` on `prepared` (this session's input, or one like it), under the model's
        forward lock: not while another forward of it runs (a background check switches its attention function)."""
        with forward_lock(self.adapter.model_root):
            return plan_pass(self.adapter.module, run, input_tensors(prepared),
                             method="auto" if self._planning == "lazy" else self._planning,
                             context=plan_context(self.adapter, prepared))

    def plan_another_length(self) -> bool:
        """Plan this input one token shorter too, where its plan was made on meta and can grow (`core.plan_growth`):
        with two lengths planned, the model's next Runs of other lengths grow their plans instead of planning them.
        The window does it once, in the Run that loaded the model (seconds already). True when it planned."""
        if not plan_growth.wants_anchor(self.adapter.module, self.plan):
            return False
        shorter = replace(self.prepared, args=_cut(self.prepared.args), kwargs=_cut(self.prepared.kwargs))
        self._plan_of(shorter, lambda: self.adapter.forward(shorter))
        return True

    def confirm_plan(self, captures: Sequence[Capture]) -> bool:
        """Whether a finished pass of every stage (`captures`, in order) is what the plan said. Only a plan grown from
        other lengths' (`core.plan_growth`) can miss; one that did makes this model's later lengths be planned again."""
        return self._plan is None or plan_growth.confirm(self.adapter.module, self._plan, captures)

    @property
    def layout(self) -> PassLayout:
        """The pass's schematic layout (made the first time it is asked for)."""
        if self._layout is None:
            self._layout = layout_of(self.adapter, self.plan)
        return self._layout

    @property
    def stepper(self) -> Stepper:
        """The Stepper over this session's pass (made, with the plan, when first asked for)."""
        if self._stepper is None:
            self._stepper = Stepper(self.adapter.module, self.forward, plan=self.plan.names(), stages=self.stages,
                                    max_capture_bytes=self.max_capture_bytes, keep=self.keep)
        return self._stepper

    @property
    def verification(self) -> Verification | None:
        """The verdict of the last check against the unmodified model (waits for one running in the background)."""
        return self.wait_verification()

    @property
    def tokens(self) -> dict[str, list[str]]:
        """Token strings per stream."""
        return {k: list(v) for k, v in self.prepared.tokens.items()}

    def capture_estimate(self) -> CaptureEstimate:
        """What a pass will hold (from the plan, before it runs) and what the budget drops.

        Kept while the stage filter and the budget stay the same (the window asks at every step)."""
        key = (tuple(self.stages) if self.stages is not None else None, self.max_capture_bytes, self.keep)
        if self._estimate is None or self._estimate[0] != key:
            self._estimate = (key, estimate_capture(self.plan, self.stages, self.max_capture_bytes, self.keep))
        return self._estimate[1]

    def capture_all(self, on_capture: Callable[[Capture], object] | None = None, verify: str = "background",
                    on_verified: Callable[[Verification | None], None] | None = None,
                    transplant: Mapping[str, torch.Tensor | Callable[[torch.Tensor], torch.Tensor]] | None = None
                    ) -> tuple[list[Capture], Any]:
        """Run the whole pass without pausing; the captures (filtered by `stages`) and the output.

        `transplant` puts tensors in at stages by name (another pass's, cast to this pass's dtype and
        device: tfdebug.sessions.transplant): what follows reads them, and their captures hold them (`edited`).
        A callable there is handed the tensor the pass computed at that stage and returns the one put in (a batched
        patching sweep changes each batch row's own cell: tfdebug.sessions.patching).

        Stages beyond the budget come back `dropped`, without tensors; `on_capture` sees
        every stage with its tensor while the pass runs (e.g. to compute its stats).
        `verify`: "background" (default) checks the output against the unmodified model
        after returning, in a thread, and hands the verdict to `on_verified` there (also
        kept in `verification`; `wait_verification()` waits for it); "now" checks before
        returning; "never" does not check.
        """
        budget = self.new_budget()

        def keep_within_budget(capture: Capture) -> torch.Tensor | None:
            replacement = None
            if transplant is not None and capture.name in transplant:
                given = transplant[capture.name]
                if callable(given):
                    assert capture.tensor is not None  # a stage's capture holds its tensor while the pass is at it
                    given = given(materialized(capture.tensor))
                replacement = materialized(given).to(capture.device, capture.dtype)
                capture.tensor, capture.edited, capture.recipe = replacement, True, False
            if on_capture is not None:
                on_capture(capture)
            budget.keep_or_drop(capture)
            return replacement

        with forward_lock(self.adapter.model_root), torch.no_grad(), \
                Recorder(self.adapter.module, self.stages, on_capture=keep_within_budget) as rec:
            output = self.forward()
        if self.stages is None and (self._plan is None or not self.confirm_plan(rec.captures)):
            # every stage ran: the pass is its own plan (where none was made, or a grown one missed it)
            self._plan = Plan([Capture(c.info, c.shape, c.dtype, c.device, recipe=c.recipe) for c in rec.captures],
                             method="captured")
        if verify == "now":
            verdict = self.verify(output)
            if on_verified is not None:
                on_verified(verdict)
        elif verify == "background":
            self.verify_in_background(output, on_verified)
        return rec.captures, output

    def _verdict_key(self) -> tuple:
        adapter = self.adapter
        return (tuple(sorted(self.prepared.texts.items())), repr(sorted(self.prepared.options.items())),
                str(adapter.dtype), str(adapter.device))

    def new_budget(self) -> CaptureBudget:
        """A capture budget for one pass of this session (its limit, policy and stage order)."""
        if self.max_capture_bytes is None or self.keep == FIRST_FIT and self._plan is None:
            return CaptureBudget(self.max_capture_bytes, self.keep)  # forward order needs no plan: one forward
        order = [c.name for c in self.plan if matches(c.name, self.stages)]
        return CaptureBudget(self.max_capture_bytes, self.keep, order=order)

    def verify(self, output: Any) -> Verification | None:
        """Compare a tapped pass's output with the unmodified model's (adapters that add taps do).

        Once per model, input, dtype and device: a verdict already reached is reused."""
        verdicts = _VERDICTS.setdefault(self.adapter.module, {})
        key = self._verdict_key()
        if key in verdicts:
            self._verification, self.verification_seconds = verdicts[key], 0.0
            return verdicts[key]
        start = time.perf_counter()
        with forward_lock(self.adapter.model_root), torch.no_grad():
            verification = self.adapter.verify(self.prepared, output)
        self.verification_seconds = time.perf_counter() - start
        verdicts[key] = self._verification = verification
        return verification

    def verify_in_pass(self) -> Verification | None:
        """The verdict of the check made in the last pass (`in_pass`): each layer's attention against the model's
        own function on the same inputs, no second forward. None where none ran or it could not follow every
        attention site (an edited plane, a model whose attention is its own code); `verify` then can."""
        verdict = self.adapter.verified_in_pass(self.prepared)
        if verdict is not None:
            self._verification, self.verification_seconds = verdict, 0.0
        return verdict

    def verify_in_background(self, output: Any,
                             on_verified: Callable[[Verification | None], None] | None = None) -> threading.Thread:
        """Start `verify(output)` in a thread (it drops `output` once done) and hand the verdict to `on_verified`."""
        box = [output]

        def check() -> None:
            verdict = self.verify(box.pop())
            if on_verified is not None:
                on_verified(verdict)

        thread = threading.Thread(target=check, name="tfdebug-verify", daemon=True)
        self._verifying = thread
        _CHECKS.add(thread)
        thread.start()
        return thread

    def wait_verification(self, timeout: float | None = None) -> Verification | None:
        """The verdict of the check running in the background, once it has finished (None: none ran)."""
        thread = self._verifying
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        return self._verification

    def close(self) -> None:
        """Stop the pass and hand the memory its captures held back to the system."""
        if self._stepper is not None:
            self._stepper.stop()
            self._stepper.forget_history()
        release_freed_memory()


def layout_of(adapter: ModelAdapter, plan) -> PassLayout:
    """The pass layout with the adapter's titles."""
    return build_layout(plan, adapter.layer_titles, adapter.site_titles, adapter.stack_titles)
