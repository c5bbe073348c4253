"""Which axes of the shown stage the window shows, and where every other axis is fixed.

`ShownAxes` is a Qt-free part the controller owns (`ctl.axes`): it reads and changes the view selection
every panel shares (`tfdebug.core.view.ViewSelection`: the two shown axes, the index of every other axis
by name) and names the tokens along an axis. A change has the screen's shown stage cut its slice again.
"""

from __future__ import annotations

from typing import Protocol

from tfdebug.core.recorder import Capture
from tfdebug.core.stages import token_labels
from tfdebug.core.view import ViewSelection, axis_names


class _Redraws(Protocol):
    def refresh_slice(self) -> None: ...


class AxesScreen(Protocol):
    """What `ShownAxes` reads of the window's pass (the controller is one): the shown capture (`current`), the
    pass's token strings per stream (`tokens`), the model's token strings where they are here (`vocabulary()`,
    or None), and the shown stage (`shown`), which cuts its slice again after a change."""

    @property
    def current(self) -> Capture | None:
        """The shown capture, or None."""
        ...

    @property
    def tokens(self) -> dict[str, list[str]]:
        """The pass's token strings per stream."""
        ...

    @property
    def shown(self) -> _Redraws:
        """The shown stage (cuts its slice again)."""
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
        self.view.row_axis, self.view.col_axis = row, col
        names = self.names()
        if names:
            self.view.pin((names[row], names[col]))
        self._screen.shown.refresh_slice()

    def set_index(self, axis_name: str, index: int) -> None:
        """Fix the axis called `axis_name` (head, batch, ...) at `index` and redraw."""
        if self.view.indices_by_name.get(axis_name) == index:
            return
        self.view.indices_by_name[axis_name] = index
        self._screen.shown.refresh_slice()

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
