"""Which axes of the shown stage the window shows, and where every other axis is fixed.

`ShownAxes` is a Qt-free part the controller owns (`ctl.axes`): it reads and changes the view selection
every panel shares (`tfdebug.core.view.ViewSelection`, an evented model: the two shown axes, the index of
every other axis by name, the pin) and names the tokens along an axis. A change is the view's event, which
the shown stage (it cuts its slice again) and the controls that show the view subscribe to.
"""

from __future__ import annotations

from typing import Protocol

from tfdebug.core.recorder import Capture
from tfdebug.core.stages import token_labels
from tfdebug.core.view import ViewSelection, axis_names


class AxesScreen(Protocol):
    """What `ShownAxes` reads of the window's pass (the controller is one): the shown capture (`current`), the
    pass's token strings per stream (`tokens`) and the model's token strings where they are here (`vocabulary()`,
    or None)."""

    @property
    def current(self) -> Capture | None:
        """The shown capture, or None."""
        ...

    @property
    def tokens(self) -> dict[str, list[str]]:
        """The pass's token strings per stream."""
        ...

    def vocabulary(self) -> list[str] | None:
        """The model's token strings where they are here, else None."""
        ...


class ShownAxes:
    """The view's axes of the shown stage of `screen` (an `AxesScreen`)."""

    def __init__(self, view: ViewSelection, screen: AxesScreen):
        self.view, self._screen = view, screen

    def names(self, capture: Capture | None = None) -> tuple[str, ...]:
        """The axis names of `capture` (default: the shown stage), numbered where a name repeats."""
        capture = capture or self._screen.current
        return axis_names(capture.info.axes, capture.shape) if capture is not None else ()

    def indices(self, capture: Capture | None = None) -> dict[int, int]:
        """Axis number -> the index it is fixed at, for every axis of `capture` not shown."""
        capture = capture or self._screen.current
        return self.view.indices(self.names(capture), capture.shape) if capture is not None else {}

    def set_axes(self, row: int, col: int) -> None:
        """Show axes `row` × `col` of the current stage (swapped in when equal to the other one)."""
        if row == col:
            row, col = self.view.col_axis, self.view.row_axis
        names = self.names()
        if names:  # pinned first: whoever hears of the axes reads the pin that came with them
            self.view.pin((names[row], names[col]))
        self.view.set_axes(row, col)

    def set_index(self, axis_name: str, index: int) -> None:
        """Fix the axis called `axis_name` (head, batch, ...) at `index` (the view's event redraws)."""
        self.view.set_index(axis_name, index)

    def pin(self, on: bool) -> None:
        """Pin the shown axes (by name) for every stage that has both (`on`), or unpin."""
        names = self.names()
        self.view.pin((names[self.view.row_axis], names[self.view.col_axis]) if on and len(names) >= 2 else None)

    def labels(self, axis: int) -> list[str] | None:
        """Token strings along `axis` of the current stage, when it indexes tokens or the vocabulary."""
        capture = self._screen.current
        if capture is None or not 0 <= axis < len(capture.info.axes):
            return None
        if capture.info.axes[axis] == "vocab":  # the model's words, from its source (none in a replay)
            labels = self._screen.vocabulary()
        else:
            which = capture.info.tokens.get(capture.info.axes[axis])
            labels = token_labels(self._screen.tokens, which) if which else None
        return list(labels) if labels and len(labels) == capture.shape[axis] else None
