"""What the window shows, as plain data (Qt-free): the inputs of a run and the view selection.

The window owns one of each; the view selection is an evented model (psygnal, no Qt) whose every change
is an event carrying its value. Everything here is testable without a display.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType

from psygnal import Signal


@dataclass(frozen=True)
class RunInputs:
    """What Run starts: a model spec, a device, the texts by input key, how the model is loaded
    (`dtype`, and a `device_map` that places a Hugging Face model instead of `device`; None: on `device`)
    and whether the texts go through the tokenizer's chat template (`chat`); `batch`: more texts for the first
    input, each one more row of a batch the tokenizer pads (the CLI's repeated --input)."""

    model: str
    device: str = "cpu"
    texts: dict[str, str] = field(default_factory=dict)
    dtype: str = "float32"
    device_map: str | None = None
    #: send the texts as a user's chat turn (the tokenizer's chat template; models that have one)
    chat: bool = False
    batch: tuple[str, ...] = ()

    def to_list(self) -> list:
        """A settings-friendly form: [model, device, {key: text}]."""
        return [self.model, self.device, dict(self.texts)]

    @classmethod
    def from_list(cls, value) -> "RunInputs | None":
        """The inverse of `to_list`; None for anything malformed (old or damaged settings)."""
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            return None
        model, device, texts = value
        if not (isinstance(model, str) and isinstance(device, str) and isinstance(texts, dict)):
            return None
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in texts.items()):
            return None
        return cls(model, device, dict(texts))


class ViewSelection:
    """Which axes of the current stage are shown and where every other axis is fixed, as an evented model.

    Indices are kept by axis name so the head picked at one attention stage stays
    picked at the next one. A stage opens on its last two axes unless the user pinned
    a pair of axis names that the stage has (`pinned`).

    Each field changes only through a method, which emits the field's event with its new value (psygnal
    signals, Qt-free, as napari's `Dims` does) when, and only when, the value changed: `axes_changed(row, col)`,
    `index_changed(name, index)`, `pinned_changed(pair or None)`. The window's controls and its shown stage
    subscribe; a served pass's follower and a comparison use it without subscribers.
    """

    axes_changed = Signal(int, int)  # the shown axes: row axis number, column axis number
    index_changed = Signal(str, int)  # an axis not shown is fixed at another index: its name, the index
    pinned_changed = Signal(object)  # the pinned pair of axis names, or None (unpinned)

    def __init__(self, indices_by_name: Mapping[str, int] | None = None, pinned: tuple[str, str] | None = None):
        self._row, self._col = 0, 0
        self._indices: dict[str, int] = dict(indices_by_name or {})
        self._pinned: tuple[str, str] | None = (pinned[0], pinned[1]) if pinned else None

    @property
    def row_axis(self) -> int:
        """The axis shown as rows (its number in the shown stage's shape)."""
        return self._row

    @property
    def col_axis(self) -> int:
        """The axis shown as columns."""
        return self._col

    @property
    def indices_by_name(self) -> Mapping[str, int]:
        """The index every axis not shown is fixed at, by axis name (read-only: `set_index` changes one)."""
        return MappingProxyType(self._indices)

    @property
    def pinned(self) -> tuple[str, str] | None:
        """The pair of axis names shown at every stage that has both, or None."""
        return self._pinned

    def copy(self) -> "ViewSelection":
        """The same selection, with no subscribers (a worker may read it while this one changes)."""
        other = ViewSelection(self._indices, self._pinned)
        other._row, other._col = self._row, self._col
        return other

    @contextmanager
    def held(self) -> Iterator[None]:
        """Change the view in the block and tell its subscribers when the block ends (the pin's changes, then
        the axes', then the indices'): they read the view and what it shows once both are consistent."""
        with self.index_changed.paused(), self.axes_changed.paused(), self.pinned_changed.paused():
            yield  # resumed in reverse: the pin first

    def set_axes(self, row: int, col: int) -> None:
        """Show axis `row` as rows and `col` as columns."""
        if (row, col) != (self._row, self._col):
            self._row, self._col = row, col
            self.axes_changed.emit(row, col)

    def set_index(self, name: str, index: int) -> None:
        """Fix the axis called `name` at `index` (clamped to each stage's size where it is read)."""
        if self._indices.get(name) != index:
            self._indices[name] = index
            self.index_changed.emit(name, index)

    def fit(self, info_axes: tuple[str, ...], shape: tuple[int, ...]) -> None:
        """Choose the shown axes for a stage: the pinned pair when the stage has both, else the last two."""
        n = len(shape)
        if n < 2:
            self.set_axes(0, 0)
            return
        names = axis_names(info_axes, shape)
        if self._pinned and all(a in names for a in self._pinned):
            self.set_axes(names.index(self._pinned[0]), names.index(self._pinned[1]))
        else:
            self.set_axes(n - 2, n - 1)

    def pin(self, names: tuple[str, str] | None) -> None:
        """Keep showing these two axes (by name) at every stage that has them; None unpins."""
        names = (names[0], names[1]) if names else None
        if names != self._pinned:
            self._pinned = names
            self.pinned_changed.emit(names)

    def indices(self, axes: tuple[str, ...], shape: tuple[int, ...]) -> dict[int, int]:
        """Index of every axis that is not shown, clamped to its size."""
        out = {}
        names = axis_names(axes, shape)
        for i, size in enumerate(shape):
            if i in (self._row, self._col):
                continue
            out[i] = max(0, min(self._indices.get(names[i], 0), size - 1))
        return out


def axis_names(axes: tuple[str, ...], shape: tuple[int, ...]) -> tuple[str, ...]:
    """A stage's axis names, or '0', '1', … when it declares none (or the wrong number)."""
    return tuple(axes) if len(axes) == len(shape) else tuple(str(i) for i in range(len(shape)))
