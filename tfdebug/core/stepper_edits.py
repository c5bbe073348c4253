"""Editing the paused stage: `replace` its tensor (it flows downstream), `edit` it, and `undo_replace`.

A mixin of `Stepper`: it uses the stepper's lock, history, cursor and events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdebug.core.edits import Edit, Region, apply_edit
from tfdebug.core.errors import ReplacementError
from tfdebug.core.recipes import is_plane
from tfdebug.core.stepper_state import _ENDED, PAUSED, StepperEvent
from tfdebug.core.view import axis_names

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import threading

    from torch import Tensor

    from tfdebug.core.recorder import Capture


class EditsMixin:
    """`replace`, `edit`, `undo_replace` and `edits_to_undo` of a live Stepper paused at a stage."""

    if TYPE_CHECKING:  # the Stepper's, for the type checker: what this mixin reads and sets
        _lock: threading.Condition
        history: list[Capture]
        cursor: int
        live_index: int | None
        state: str
        _replacement: Tensor | None
        _undo: list[Tensor | None]

        @property
        def at_live_point(self) -> bool: ...
        @property
        def current(self) -> Capture | None: ...
        def _emit(self, event: StepperEvent) -> None: ...

    def replace(self, tensor: Tensor) -> None:
        """Replace the tensor of the stage the forward is paused at; it flows downstream."""
        with self._lock:
            if not self.at_live_point:
                raise self._not_replaceable()
            capture = self.history[self.cursor]
            if tuple(tensor.shape) != capture.shape:
                raise ReplacementError("The replacement has shape {got}; stage {name} needs {shape}.",
                                       id="replace.shape", got=tuple(tensor.shape), name=capture.name,
                                       shape=capture.shape)
            if not (tensor.is_floating_point() or tensor.is_complex()) and capture.dtype.is_floating_point:
                tensor = tensor.float()
            new = tensor.detach().to(device=capture.device, dtype=capture.dtype)
            self._undo.append(capture.tensor)
            self._replacement = new
            capture.tensor = new
            capture.edited = True
            capture.recipe = False  # an edited plane is a tensor of its own now: saved and counted as one
        self._emit(StepperEvent("replaced", self.cursor, capture))

    def edit(self, edit: Edit, region: Region) -> str:
        """Apply `edit` to the paused stage's `region` (core.edits.apply_edit) and replace it; what it did, in
        words. A served pass's stepper (tfdebug.remote.stepper) makes the same edit on the server."""
        with self._lock:
            if not self.at_live_point:
                raise self._not_replaceable()
            capture = self.history[self.cursor]
            tensor = capture.tensor
            assert tensor is not None  # the paused stage keeps its tensor until the pass moves on
        self.replace(apply_edit(tensor, edit, region, axis_names(capture.info.axes, capture.shape)))
        return str(edit.describe())

    def _not_replaceable(self) -> ReplacementError:
        shown, live = self.current, self.live_index
        if self.state == PAUSED and shown is not None and live is not None:
            return ReplacementError("Stage {name} has already run: only the stage the forward is paused at ({live}) "
                                    "can be edited. Restart to edit an earlier one.", id="replace.already_run",
                                    name=shown.name, live=self.history[live].name)
        if self.state in _ENDED:
            return ReplacementError("The pass has ended: Restart it and pause at a stage to edit it.",
                                    id="replace.ended")
        return ReplacementError("Only the stage the forward is paused at can be replaced.", id="replace.not_paused")

    @property
    def edits_to_undo(self) -> int:
        """How many replacements of the paused stage `undo_replace` can take back."""
        return len(self._undo) if self.at_live_point else 0

    def undo_replace(self) -> None:
        """Take back the last `replace` of the paused stage; with all taken back it is unedited again."""
        with self._lock:
            if not self.at_live_point or not self._undo:
                raise ReplacementError("There is no edit of the paused stage to undo.", id="replace.nothing_to_undo")
            capture = self.history[self.cursor]
            capture.tensor = self._undo.pop()
            self._replacement = capture.tensor if self._undo else None
            capture.edited = bool(self._undo)
            capture.recipe = is_plane(capture.tensor)
        self._emit(StepperEvent("replaced", self.cursor, capture))
