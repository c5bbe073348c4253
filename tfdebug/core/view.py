"""What the window shows, as plain data (Qt-free): the inputs of a run and the view selection.

The controller in `tfdebug.ui` owns one of each and announces their changes with Qt
signals; everything here is testable without a display.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    """Which axes of the current stage are shown and where every other axis is fixed.

    Indices are kept by axis name so the head picked at one attention stage stays
    picked at the next one. A stage opens on its last two axes unless the user pinned
    a pair of axis names that the stage has (`pinned`).
    """

    def __init__(self):
        self.row_axis = 0
        self.col_axis = 0
        self.indices_by_name: dict[str, int] = {}
        self.pinned: tuple[str, str] | None = None

    def fit(self, info_axes: tuple[str, ...], shape: tuple[int, ...]) -> None:
        """Choose the shown axes for a stage: the pinned pair when the stage has both, else the last two."""
        n = len(shape)
        if n < 2:
            self.row_axis, self.col_axis = 0, 0
            return
        names = axis_names(info_axes, shape)
        if self.pinned and all(a in names for a in self.pinned):
            self.row_axis, self.col_axis = names.index(self.pinned[0]), names.index(self.pinned[1])
        else:
            self.row_axis, self.col_axis = n - 2, n - 1

    def pin(self, names: tuple[str, str] | None) -> None:
        """Keep showing these two axes (by name) at every stage that has them; None unpins."""
        self.pinned = names

    def indices(self, axes: tuple[str, ...], shape: tuple[int, ...]) -> dict[int, int]:
        """Index of every axis that is not shown, clamped to its size."""
        out = {}
        names = axis_names(axes, shape)
        for i, size in enumerate(shape):
            if i in (self.row_axis, self.col_axis):
                continue
            out[i] = max(0, min(self.indices_by_name.get(names[i], 0), size - 1))
        return out


def axis_names(axes: tuple[str, ...], shape: tuple[int, ...]) -> tuple[str, ...]:
    """A stage's axis names, or '0', '1', … when it declares none (or the wrong number)."""
    return tuple(axes) if len(axes) == len(shape) else tuple(str(i) for i in range(len(shape)))
