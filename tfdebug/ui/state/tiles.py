"""Tiles of the shown slice on the display worker: the zoomed heatmap's view and the picked query's row.

`TileReads` is a Qt-free part the controller owns (`ctl.tiles`). Each read takes only its region of the
stage's tensor (the pass's display's `tile_of`, `tfdebug.core.tiles.read_tile` where the tensor is: one indexing, so a plane computed on demand computes just
those cells), under its own kind of job: a newer zoom or pick replaces a pending one, and a result for a
stage or view no longer shown is dropped.
"""

from __future__ import annotations

from typing import Callable, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP

from tfdebug.core.recorder import Capture
from tfdebug.core.tiles import Tile, slice_shape
from tfdebug.ui.state.shown import ShownStage, cannot

QT_TRANSLATE_NOOP("ShownStage", "Cannot read this part of {name}: {why}")


class TilesScreen(Protocol):
    """What `TileReads` reads of the window's pass and tells it (the controller is one)."""

    def announce_row_picked(self) -> None:
        """The picked query row changed: the views that plot it read it again."""
        ...

    def fail(self, content: str) -> None:
        """A tile could not be read: say why."""
        ...


class TileReads:
    """Tile reads of the shown stage (`shown`) and the picked query row (`picked_row`).

    Tiles are read through the pass's display (`shown.source_display`: here, or on the server of a served pass,
    where only the tile crosses); `screen` (a `TilesScreen`) is told when the picked row changes and when a tile
    cannot be read."""

    def __init__(self, shown: ShownStage, screen: TilesScreen):
        self._shown, self._screen = shown, screen
        self.picked_row: int | None = None  # a row of the shown slice picked by a click in the heatmap

    def can_read_tiles(self, capture: Capture | None = None) -> bool:
        """Whether parts of `capture` (the shown stage) can be read: its tensor is in this process, or on the
        server of a served pass (which reads the tile where the tensor lives; only the tile crosses)."""
        return self._shown.showable(capture or self._shown.current)

    def _selection(self, capture: Capture) -> tuple:
        view = self._shown.view
        return capture, view.row_axis, view.col_axis, tuple(sorted(self._shown.axes.indices(capture).items()))

    def _submit_tile(self, kind: str, rows: tuple[int, int], cols: tuple[int, int], max_size: tuple[int, int],
                     row_max: bool, done: Callable[[Tile], None]) -> bool:
        shown = self._shown
        capture = shown.current
        if not self.can_read_tiles(capture):
            return False
        selection = self._selection(capture)
        _, row, col, indices = selection

        def arrived(tile: Tile) -> None:
            if capture is shown.current and self._selection(capture) == selection:
                done(tile)
        display = shown.source_display
        read = lambda: display.tile_of(capture, row, col, dict(indices), rows, cols, max_size, row_max)  # noqa: E731
        shown.display.submit(kind, read, arrived, lambda exc: self._tile_failed(capture, exc))
        return True

    def request_tile(self, rows: tuple[int, int], cols: tuple[int, int], max_size: tuple[int, int],
                     row_max: bool, done: Callable[[Tile], None]) -> bool:
        """Read rows × cols of the shown slice at most `max_size` (with the rows' maxima when `row_max`)
        on the display worker; `done(tile)` on the GUI thread while that stage and view are shown.
        False when the stage's parts cannot be read here."""
        return self._submit_tile("tile", rows, cols, max_size, row_max, done)

    def pick_row(self, row: int | None) -> None:
        """Choose the query (row of the shown slice) whose weights the Query Row view plots; None: none."""
        self.picked_row = row
        self._screen.announce_row_picked()

    def request_row(self, done: Callable[[Tile], None]) -> bool:
        """The picked row of the shown slice over every column, cell for cell (a 1 × n tile); False when
        no row is picked, it is outside the slice, or the stage cannot be read here."""
        capture, view = self._shown.current, self._shown.view
        if self.picked_row is None or not self.can_read_tiles(capture):
            return False
        try:
            n_rows, n_cols = slice_shape(capture, view.row_axis, view.col_axis)
        except ValueError:
            return False
        if not 0 <= self.picked_row < n_rows:
            return False
        row = self.picked_row
        return self._submit_tile("row", (row, row + 1), (0, n_cols), (1, n_cols), False, done)

    def _tile_failed(self, capture: Capture, exc: Exception) -> None:
        if capture is self._shown.current:
            self._screen.fail(cannot("Cannot read this part of {name}: {why}", capture, exc))
