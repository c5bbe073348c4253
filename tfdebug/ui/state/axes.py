"""Which axes of the shown stage the window shows, and where every other axis is fixed.

`ShownAxes` is a Qt-free part the controller owns (`ctl.axes`): it reads and changes the view selection
every panel shares (`tfdebug.core.view.ViewSelection`: the two shown axes, the index of every other axis
by name) and names the tokens along an axis. A change calls `changed()` (the shown slice is cut again).
"""

from __future__ import annotations

from typing import Callable

from tfdebug.core.recorder import Capture
from tfdebug.core.stages import token_labels
from tfdebug.core.view import ViewSelection, axis_names


class ShownAxes:
    """The view's axes of the shown stage. `current()` is the shown capture, `tokens()` the pass's token
    strings per stream, `vocabulary()` the model's token strings where they are here (or None)."""

    def __init__(self, view: ViewSelection, current: Callable[[], Capture | None],
                 tokens: Callable[[], dict[str, list[str]]],
                 vocabulary: Callable[[], list[str] | None],
                 changed: Callable[[], None]):
        self.view = view
        self._current, self._tokens, self._vocabulary, self._changed = current, tokens, vocabulary, changed

    def names(self, capture: Capture | None = None) -> tuple[str, ...]:
        """The axis names of `capture` (default: the shown stage), numbered where a name repeats."""
        capture = capture or self._current()
        return axis_names(capture.info.axes, capture.shape) if capture is not None else ()

    def indices(self, capture: Capture | None = None) -> dict[int, int]:
        """Axis number -> the index it is fixed at, for every axis of `capture` not shown."""
        capture = capture or self._current()
        return self.view.indices(self.names(capture), capture.shape) if capture is not None else {}

    def set_axes(self, row: int, col: int) -> None:
        """Show axes `row` × `col` of the current stage (swapped in when equal to the other one)."""
        if row == col:
            row, col = self.view.col_axis, self.view.row_axis
        self.view.row_axis, self.view.col_axis = row, col
        names = self.names()
        if names:
            self.view.pin((names[row], names[col]))
        self._changed()

    def set_index(self, axis_name: str, index: int) -> None:
        """Fix the axis called `axis_name` (head, batch, ...) at `index` and redraw."""
        if self.view.indices_by_name.get(axis_name) == index:
            return
        self.view.indices_by_name[axis_name] = index
        self._changed()

    def labels(self, axis: int) -> list[str] | None:
        """Token strings along `axis` of the current stage, when it indexes tokens or the vocabulary."""
        capture = self._current()
        if capture is None or not 0 <= axis < len(capture.info.axes):
            return None
        if capture.info.axes[axis] == "vocab":  # the model's words, from its source (none in a replay)
            labels = self._vocabulary()
        else:
            which = capture.info.tokens.get(capture.info.axes[axis])
            labels = token_labels(self._tokens(), which) if which else None
        return list(labels) if labels and len(labels) == capture.shape[axis] else None
