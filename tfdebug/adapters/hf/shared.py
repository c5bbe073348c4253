"""Layers that share their weights: one layer module run several times (ALBERT), one name per application.

A stack whose module list runs the same layer module again is planned call by call: the
fourth application of the layer is `enc.3`, whatever its module path. Every hook planned
for application k is installed gated (`Gated`): it fires only while the layer module runs
for the k-th time in this forward, which `Applications` counts. The attention function
finds its taps by module; for a shared module `SiteSwitch` hands it application k's taps
as that application starts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from torch import nn
from torch.utils.hooks import RemovableHandle

from tfdebug.adapters.hf import attention as hf_attention
from tfdebug.core.tap import Tap


def _key(path: str) -> tuple[str, str]:
    return ("application", path)


@dataclass(frozen=True)
class Applications:
    """Counts the layer calls of the module list at `path` (its children `layers`, any of them) in each forward
    of the model: 0 while the first runs."""

    path: str
    layers: tuple[str, ...]

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        key = _key(self.path)

        def reset(module, args):
            stash[key] = -1

        def count(module, args):
            stash[key] = stash.get(key, -1) + 1

        return [model.register_forward_pre_hook(reset)] + [
            model.get_submodule(p).register_forward_pre_hook(count) for p in self.layers]


class _GatedModule:
    """A module whose hooks, registered through it, run only while `gate()` holds (else change nothing)."""

    def __init__(self, module: nn.Module, gate):
        self.module, self.gate = module, gate

    def _wrap(self, hook):
        gate = self.gate

        def gated(*args):
            return hook(*args) if gate() else None
        return gated

    def register_forward_hook(self, hook, **options) -> RemovableHandle:
        return self.module.register_forward_hook(self._wrap(hook), **options)

    def register_forward_pre_hook(self, hook, **options) -> RemovableHandle:
        return self.module.register_forward_pre_hook(self._wrap(hook), **options)


class _GatedModel:
    def __init__(self, model: nn.Module, gate):
        self.model, self.gate = model, gate

    def get_submodule(self, path: str) -> _GatedModule:
        return _GatedModule(self.model.get_submodule(path), self.gate)


@dataclass(frozen=True)
class Gated:
    """`hook`, firing only during the `application`-th layer call of the module list at `path`."""

    hook: Any
    path: str
    application: int

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        key, k = _key(self.path), self.application
        return self.hook.install(_GatedModel(model, lambda: stash.get(key) == k), taps, stash)


@dataclass(frozen=True)
class SiteSwitch:
    """As the attention module at `path` starts, the attention function's taps for it become `site`'s
    (installed gated: application k's site in application k)."""

    path: str
    site: Any

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        site = self.site

        def switch(module, args):
            current = hf_attention._SITES.get(id(module))
            if current is not None:  # inside tapped_attention: keep its cache flag
                hf_attention._SITES[id(module)] = replace(site, cached=current.cached)

        return [model.get_submodule(self.path).register_forward_pre_hook(switch)]


def per_application(hooks: list, sites: Mapping[nn.Module, Any], paths: Mapping[int, str], list_path: str,
                    application: int) -> list:
    """The hooks planned for one application of a shared layer, gated to it, and a switch to its attention
    sites (`sites`: the modules this application planned, `paths`: id(module) → module path)."""
    switches = [SiteSwitch(paths[id(module)], site) for module, site in sites.items()]
    return [Gated(h, list_path, application) for h in switches + list(hooks)]
