"""The one registry of export formats: suffix → label, scope, writer and reader.

Everything that offers or picks a format (io.exports, `tfdebug capture --out`, the
Export dialog, the File actions) reads this registry; a new format is one
`register(...)` call. Scope "pass" formats write a Recording
(`writer(recording, path, progress)`) and read one back (`reader(path)`); scope "view"
formats write the heatmap being shown (`writer(view, path)`), where `View` carries the
values, their labels and the window's picture renderer (Qt stays in ui/).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

from tfdebug.core.errors import ExportError
from tfdebug.core.phrases import Choices, Phrase

Scope = Literal["pass", "view"]


@dataclass(frozen=True)
class ExportFormat:
    """One export format. `reader` is None for formats that hold no recorded pass."""

    suffix: str
    label: str
    scope: Scope
    writer: Callable[..., None]
    reader: Callable[[str | os.PathLike], Any] | None = None


@dataclass(frozen=True)
class View:
    """The heatmap being shown, as a view export takes it.

    `values` is a DisplaySlice or a 2-D array; `render(path, suffix)` draws the picture
    (supplied by the window; None where there is no window).
    """

    values: Any
    row_labels: Sequence[str] | None = None
    col_labels: Sequence[str] | None = None
    render: Callable[[str, str], None] | None = None


_REGISTRY: dict[str, ExportFormat] = {}


def _builtins() -> None:
    # The built-in formats register when io.exports is first imported. That module needs torch,
    # which reading a snapshot's header does not, so it is imported here, before the registry is
    # first read or added to: a format registered early replaces a built-in, never the reverse.
    import tfdebug.io.exports  # noqa: F401


def register(fmt: ExportFormat) -> ExportFormat:
    """Add (or replace) the format for `fmt.suffix`; registration order is the order offered."""
    if not fmt.suffix.startswith(".") or fmt.suffix != fmt.suffix.lower():
        raise ValueError(f"an export suffix is a lower-case '.ext', not {fmt.suffix!r}")
    _builtins()
    _REGISTRY[fmt.suffix] = fmt
    return fmt


def formats(scope: Scope | None = None) -> list[ExportFormat]:
    """Registered formats in the order offered, optionally only those of one scope."""
    _builtins()
    return [f for f in _REGISTRY.values() if scope is None or f.scope == scope]


def suffixes(scope: Scope | None = None) -> tuple[str, ...]:
    """The file suffixes of the registered formats (of one scope, "pass" or "view", when given)."""
    return tuple(f.suffix for f in formats(scope))


def _choices(scope: Scope | None) -> Choices:
    return Choices(suffixes(scope))


def format_for(path: str | os.PathLike, fmt: str | None = None, scope: Scope | None = None) -> ExportFormat:
    """The format `fmt` ('npz' or '.npz') names, else the one `path`'s suffix names; ExportError otherwise."""
    suffix = ("." + fmt.lstrip(".") if fmt else Path(path).suffix).lower()
    known = {f.suffix: f for f in formats()}
    if suffix not in known:
        shown = suffix or Phrase("'{name}' (no suffix)", id="export.no_suffix", name=Path(path).name)
        raise ExportError("Cannot export to {shown}: choose a {choices} file.", id="export.unknown_suffix",
                          shown=shown, choices=_choices(scope))
    found = known[suffix]
    if scope is not None and found.scope != scope:
        if scope == "pass":
            raise ExportError("A whole pass cannot be exported as {suffix}; choose {choices}.",
                              id="export.pass_suffix", suffix=suffix, choices=_choices(scope))
        raise ExportError("The heatmap cannot be exported as {suffix}; choose {choices}.",
                          id="export.view_suffix", suffix=suffix, choices=_choices(scope))
    return found
