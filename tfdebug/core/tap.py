"""Tap: an identity module marking one stage of a forward pass.

A model calls `self.taps["q"](x)` where it wants the stage visible. With no hook
attached the call costs one module call and returns its input unchanged; the Recorder
attaches hooks that see (and may replace) the tensor.
"""

from __future__ import annotations

import os
import sys

from torch import Tensor, nn

from tfdebug.core.stages import StageInfo, site_and_layer

_TORCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(nn.__file__)))
_THIS_FILE = os.path.abspath(__file__)


def _caller_location(depth: int = 1) -> str | None:
    """file:line of the first frame outside torch and this module, walking up from `depth`."""
    frame = sys._getframe(depth)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if filename != _THIS_FILE and not filename.startswith(_TORCH_DIR):
            return f"{_short_path(filename)}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _short_path(path: str) -> str:
    """Path relative to the package root when inside tfdebug, else as given."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(_THIS_FILE)))
    if path.startswith(package_root + os.sep):
        return os.path.relpath(path, package_root)
    return path


class Tap(nn.Module):
    """Identity module carrying a StageInfo. Holds no parameters or buffers."""

    def __init__(
        self,
        name: str,
        kind: str,
        axes: tuple[str, ...],
        formula: str,
        *,
        role: str | None = None,
        ops: tuple[str, ...] = (),
        tokens: dict[str, str] | None = None,
    ):
        super().__init__()
        site, layer = site_and_layer(name)
        self.info = StageInfo(
            name=name, kind=kind, site=site, layer=layer, axes=tuple(axes),
            formula=formula, role=role, ops=tuple(ops), tokens=dict(tokens or {}),
        )

    def forward(self, x: Tensor) -> Tensor:
        if self.info.source is None:
            # Once per tap: remember the model line that produced this tensor.
            location = _caller_location(2)
            if location is not None:
                self.info = self.info.with_source(location)
        return x

    def extra_repr(self) -> str:
        return f"{self.info.name}, kind={self.info.kind}"


def iter_taps(model: nn.Module):
    """Every Tap in a model, in module registration order."""
    for module in model.modules():
        if isinstance(module, Tap):
            yield module
