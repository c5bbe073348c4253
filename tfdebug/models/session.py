"""DebugSession: one model, one sentence pair, the plan of its pass and a Stepper over it.

The GUI wraps a session's stepper events in Qt signals; the CLI records with it headless.
"""

from __future__ import annotations

from typing import Sequence

import torch

from tfdebug.core.memory import release_freed_memory
from tfdebug.core.recorder import Capture, Recorder, stage_plan
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.models.loader import LoadedModel, PreparedInput


class DebugSession:
    """A sentence pair ready to run through `loaded.model`, stage by stage or all at once."""

    def __init__(self, loaded: LoadedModel, src_text: str, tgt_text: str = "",
                 stages: Sequence[str] | None = None):
        self.loaded = loaded
        self.src_text = src_text
        self.tgt_text = tgt_text
        self.stages = stages
        self.input: PreparedInput = loaded.prepare(src_text, tgt_text)
        self.plan: list[Capture] = stage_plan(loaded.model, self._run)
        self.stepper = Stepper(loaded.model, self._run, plan=[c.name for c in self.plan], stages=stages)

    def _run(self):
        return self.loaded.model(self.input.src, self.input.tgt)

    @property
    def tokens(self) -> dict[str, list[str]]:
        return self.input.tokens

    @property
    def unknown_words(self) -> list[str]:
        return list(self.input.unknown)

    def capture_all(self) -> tuple[list[Capture], torch.Tensor]:
        """Run the whole pass without pausing; the captures (filtered by `stages`) and the logits."""
        with torch.no_grad(), Recorder(self.loaded.model, self.stages) as rec:
            logits = self._run()
        return rec.captures, logits

    def axis_labels(self, info: StageInfo, axis: int) -> list[str] | None:
        """Token strings along `axis` of a stage's tensor when that axis indexes tokens, else None."""
        if not 0 <= axis < len(info.axes):
            return None
        which = info.tokens.get(info.axes[axis])
        return list(self.tokens[which]) if which else None

    def close(self) -> None:
        """Stop the pass and hand the memory its captures held back to the system."""
        self.stepper.stop()
        self.stepper.history = []
        release_freed_memory()
