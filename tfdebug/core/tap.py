"""Tap: an identity module marking one stage of a forward pass.

A model calls `self.taps["q"](x)` where it wants the stage visible. The Recorder
attaches a hook (`Tap.attach`) that sees the tensor and may replace it. A Tap skips
nn.Module's generic call machinery: with no hook it costs ~0.3 µs and returns its input
unchanged, with one it calls the hook directly (~10× cheaper than a forward hook).
Forward hooks registered the usual way still work: then the generic path runs.
"""

from __future__ import annotations

import os
import sys
from typing import Callable

from torch import Tensor, nn
from torch.nn.modules import module as _module

from tfdebug.core.stages import StageInfo, resolve_input, site_and_layer

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


TapHook = Callable[["Tap", Tensor], Tensor]


class Tap(nn.Module):
    """Identity module carrying a StageInfo. Holds no parameters or buffers.

    `hook(tap, tensor) -> tensor`, when attached, runs on every call; what it returns
    flows downstream. `inputs` are the stages this one is computed from: absolute names,
    or '.x' for a sibling stage (same prefix: '.norm' at 'enc.0.attn.q' is 'enc.0.attn.norm').
    """

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
        inputs: tuple[str, ...] = (),
    ):
        super().__init__()
        site, layer = site_and_layer(name)
        self.info = StageInfo(
            name=name, kind=kind, site=site, layer=layer, axes=tuple(axes),
            formula=formula, role=role, ops=tuple(ops), tokens=dict(tokens or {}),
            inputs=tuple(resolve_input(name, i) for i in inputs),
        )
        self.hook: TapHook | None = None

    def attach(self, hook: TapHook) -> None:
        """Have `hook` see (and possibly replace) the tensor at this stage."""
        # Straight into the instance dict: nn.Module.__setattr__'s checks cost more than the call.
        self.__dict__["hook"] = hook

    def detach(self) -> None:
        """Remove the hook: the tap passes its input on unchanged."""
        self.__dict__["hook"] = None

    def __call__(self, x: Tensor) -> Tensor:
        # Every stage of every layer passes here, hooked or not: no Python call that changes nothing.
        if (self._forward_hooks or self._forward_pre_hooks or _module._global_forward_hooks
                or _module._global_forward_pre_hooks):
            x = super().__call__(x)  # someone's own nn.Module hooks: honour them
        elif self.info.source is None:
            x = self.forward(x)  # the first call: the model line that produced `x`
        hook = self.hook
        return x if hook is None else hook(self, x)

    def forward(self, x: Tensor) -> Tensor:
        """The input unchanged; the first call remembers the model line that produced it."""
        if self.info.source is None:
            # Once per tap: remember the model line that produced this tensor.
            location = _caller_location(1)
            if location is not None:
                self.info = self.info.with_source(location)
        return x

    def extra_repr(self) -> str:
        """The stage's name and kind, for the module's repr."""
        return f"{self.info.name}, kind={self.info.kind}"


def iter_taps(model: nn.Module):
    """Every Tap in a model, in module registration order."""
    for module in model.modules():
        if isinstance(module, Tap):
            yield module
