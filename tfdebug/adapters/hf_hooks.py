"""Temporary module hooks that call taps on the tensors a Hugging Face model passes between its modules.

Each hook kind is one small class naming a module path and the stage(s) it shows.
What a tap returns flows downstream: a hook returns the (possibly replaced) tensor in
the module's output or input. `hooks_installed(model, hooks, taps)` registers them and
removes every one in `finally`.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

import torch
from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from tfdebug.core.tap import Tap


def _first(value):
    """The hidden-state tensor of a module's output: the tensor itself or the first item of a tuple."""
    return value[0] if isinstance(value, tuple) else value


def _with_first(value, tensor: Tensor):
    """`value` with its hidden-state tensor replaced (same container kind)."""
    if tensor is _first(value):
        return value
    return (tensor, *value[1:]) if isinstance(value, tuple) else tensor


def _input_of(args: tuple, kwargs: dict) -> Tensor:
    return args[0] if args else kwargs["hidden_states"]


def _with_input(args: tuple, kwargs: dict, tensor: Tensor):
    if args:
        return (tensor, *args[1:]), kwargs
    return args, {**kwargs, "hidden_states": tensor}


@dataclass(frozen=True)
class Output:
    """The module's output (the first item when it returns a tuple) is stage `stage`."""

    path: str
    stage: str

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap = taps[self.stage]

        def hook(module, args, output):
            return _with_first(output, tap(_first(output)))

        return [model.get_submodule(self.path).register_forward_hook(hook)]


@dataclass(frozen=True)
class Input:
    """The module's first input is stage `stage` (a replacement reaches only this module)."""

    path: str
    stage: str

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap = taps[self.stage]

        def hook(module, args, kwargs):
            x = _input_of(args, kwargs)
            new = tap(x)
            return None if new is x else _with_input(args, kwargs, new)

        return [model.get_submodule(self.path).register_forward_pre_hook(hook, with_kwargs=True)]


@dataclass(frozen=True)
class FusedQKV:
    """A fused projection's output (B, T, 3·D) is three stages, q, k and v (GPT-2's c_attn)."""

    path: str
    stages: tuple[str, str, str]

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        chosen = [taps[s] for s in self.stages]

        def hook(module, args, output):
            parts = output.chunk(3, dim=-1)  # 3 × (B, T, D)
            shown = [tap(part) for tap, part in zip(chosen, parts)]
            if all(a is b for a, b in zip(shown, parts)):
                return output
            return torch.cat(shown, dim=-1)  # (B, T, 3·D)

        return [model.get_submodule(self.path).register_forward_hook(hook)]


@dataclass(frozen=True)
class ProjectionSplit:
    """A projection's output (B, T, H·Dh) is stage `stage`, and its head split (B, H, T, Dh) stage `split`.

    Used where the model rotates Q and K before calling attention, so the split before the
    rotation is only seen here; a replaced split is merged back into the projection's output.
    """

    path: str
    stage: str
    split: str
    head_dim: int

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap, split_tap, head_dim = taps[self.stage], taps[self.split], self.head_dim

        def hook(module, args, output):
            output = tap(output)
            batch, length, width = output.shape
            heads = output.view(batch, length, width // head_dim, head_dim).transpose(1, 2)  # (B, H, T, Dh)
            shown = split_tap(heads)
            if shown is heads:
                return output
            return shown.transpose(1, 2).reshape(batch, length, width)  # (B, T, H·Dh)

        return [model.get_submodule(self.path).register_forward_hook(hook)]


@dataclass(frozen=True)
class AttentionResidual:
    """A pre-norm block's attention: its output is stage `stage`, and block input + output stage `resid`.

    The model adds the block's input to the attention's output itself; a replaced residual
    is handed back as (resid − block input) so that the model's own sum gives it.
    """

    path: str
    stage: str
    resid: str
    block: str

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap, resid_tap, key = taps[self.stage], taps[self.resid], self.block

        def remember(module, args, kwargs):
            stash[key] = _input_of(args, kwargs)

        def hook(module, args, output):
            out = tap(_first(output))
            block_input = stash.pop(key)
            resid = out + block_input  # (B, T, D): the model's own sum
            shown = resid_tap(resid)
            if shown is not resid:
                out = shown - block_input
            return _with_first(output, out)

        return [model.get_submodule(self.block).register_forward_pre_hook(remember, with_kwargs=True),
                model.get_submodule(self.path).register_forward_hook(hook)]


Hook = Output | Input | FusedQKV | ProjectionSplit | AttentionResidual


@contextmanager
def hooks_installed(model: nn.Module, hooks: Sequence[Hook], taps: Mapping[str, Tap]) -> Iterator[None]:
    """Every hook registered on `model` inside the block, and removed in `finally`."""
    handles: list[RemovableHandle] = []
    stash: dict = {}
    try:
        for hook in hooks:
            handles.extend(hook.install(model, taps, stash))
        yield
    finally:
        for handle in handles:
            handle.remove()
        stash.clear()
