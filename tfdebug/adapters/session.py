"""DebugSession: one adapted model, one set of input texts, the plan of its pass and a Stepper over it.

The GUI wraps a session's stepper events in Qt signals; the CLI records with it headless.
Nothing here knows which kind of model it runs: the adapter says.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import torch

from tfdebug.adapters.base import ModelAdapter, Prepared, Verification
from tfdebug.core.budget import FIRST_FIT, CaptureBudget, CaptureEstimate, KeepPolicy, estimate_capture
from tfdebug.core.layout import PassLayout, build_layout
from tfdebug.core.memory import release_freed_memory
from tfdebug.core.errors import UnknownStageError
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture, Recorder, check_patterns, matches, stage_plan
from tfdebug.core.stages import StageInfo, token_labels
from tfdebug.core.stepper import Stepper


class SessionTexts:
    """What a session tells about its inputs, shared by a single pass and a generation.

    Needs `adapter`, `prepared` and a `tokens` mapping of stream -> token strings.
    """

    adapter: ModelAdapter
    prepared: Prepared

    @property
    def texts(self) -> dict[str, str]:
        return dict(self.prepared.texts)

    @property
    def unknown_words(self) -> list[str]:
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


class DebugSession(SessionTexts):
    """Texts ready to run through an adapter's model, stage by stage or all at once.

    `stages` (glob patterns) filters what is captured; `max_capture_bytes` is a capture
    budget (tfdebug.core.budget): `capture_estimate()` says before a pass what it will
    hold and drop, and both the stepper and `capture_all` keep within it; `keep` (a
    KeepPolicy) chooses what stays when not all fits (default: forward order, first fit).
    """

    def __init__(self, adapter: ModelAdapter, texts: Mapping[str, str] | None = None,
                 stages: Sequence[str] | None = None, max_capture_bytes: int | None = None,
                 keep: KeepPolicy = FIRST_FIT):
        self.adapter = adapter
        self.stages = stages
        self.max_capture_bytes = max_capture_bytes
        self.keep = keep
        self._estimate: tuple[tuple, CaptureEstimate] | None = None
        self.prepared: Prepared = adapter.prepare(dict(texts) if texts is not None else adapter.default_texts())
        self.plan = Plan(stage_plan(adapter.module, self._run))
        check_patterns(self.plan.names(), stages)
        if keep.focus is not None and keep.focus not in self.plan.names():
            raise UnknownStageError("The capture budget's focus {stage} is not a stage of this pass; see "
                                    "`tfdebug stages` for the names.", id="budget.unknown_focus", stage=keep.focus)
        self.layout: PassLayout = layout_of(adapter, self.plan)
        self.stepper = Stepper(adapter.module, self._run, plan=self.plan.names(), stages=stages,
                               max_capture_bytes=max_capture_bytes, keep=keep)
        self.verification: Verification | None = None

    def _run(self) -> Any:
        return self.adapter.forward(self.prepared)

    @property
    def tokens(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in self.prepared.tokens.items()}

    def capture_estimate(self) -> CaptureEstimate:
        """What a pass will hold (from the plan, before it runs) and what the budget drops.

        Kept while the stage filter and the budget stay the same (the window asks at every step)."""
        key = (tuple(self.stages) if self.stages is not None else None, self.max_capture_bytes, self.keep)
        if self._estimate is None or self._estimate[0] != key:
            self._estimate = (key, estimate_capture(self.plan, self.stages, self.max_capture_bytes, self.keep))
        return self._estimate[1]

    def capture_all(self, on_capture: Callable[[Capture], None] | None = None) -> tuple[list[Capture], Any]:
        """Run the whole pass without pausing; the captures (filtered by `stages`) and the output.

        Stages beyond the budget come back `dropped`, without tensors; `on_capture` sees
        every stage with its tensor while the pass runs (e.g. to compute its stats).
        """
        budget = self.new_budget()

        def keep_within_budget(capture: Capture) -> None:
            if on_capture is not None:
                on_capture(capture)
            budget.keep_or_drop(capture)

        with torch.no_grad(), Recorder(self.adapter.module, self.stages, on_capture=keep_within_budget) as rec:
            output = self._run()
        self.verification = self.verify(output)
        return rec.captures, output

    def new_budget(self) -> CaptureBudget:
        """A capture budget for one pass of this session (its limit, policy and stage order)."""
        order = [c.name for c in self.plan if matches(c.name, self.stages)]
        return CaptureBudget(self.max_capture_bytes, self.keep, order=order)

    def verify(self, output: Any) -> Verification | None:
        """Compare a tapped pass's output with the unmodified model's (adapters that add taps do)."""
        with torch.no_grad():
            self.verification = self.adapter.verify(self.prepared, output)
        return self.verification

    def close(self) -> None:
        """Stop the pass and hand the memory its captures held back to the system."""
        self.stepper.stop()
        self.stepper.forget_history()
        release_freed_memory()


def layout_of(adapter: ModelAdapter, plan) -> PassLayout:
    """The pass layout with the adapter's titles."""
    return build_layout(plan, adapter.layer_titles, adapter.site_titles, adapter.stack_titles)
