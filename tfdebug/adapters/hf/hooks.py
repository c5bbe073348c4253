"""Temporary module hooks that call taps on the tensors a Hugging Face model passes between its modules.

Each hook kind is one small class naming a module path and the stage(s) it shows.
What a tap returns flows downstream: a hook returns the (possibly replaced) tensor in
the module's output or input. `hooks_installed(model, hooks, taps)` registers them and
removes every one in `finally`.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

import torch
from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from tfdebug.core.tap import Tap
from tfdebug.core.thread_flag import ThreadFlag


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


def _in_stack(stash: dict, within: str | None) -> bool:
    """Whether a hook limited to the stack `within` fires now (a module shared by encoder and decoder)."""
    return within is None or stash.get("stack") == within


def mute_key(path: str) -> tuple[str, str]:
    """The stash key that is true while the hooks of the module at `path` skip its call (`hf_own.FirstCallOnly`
    sets it); a hook reads it at every call, so it builds the key once, at install."""
    return ("muted", path)


@dataclass(frozen=True)
class StackMarker:
    """While the module at `path` runs (an encoder or a decoder), hooks limited to it fire."""

    path: str

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        outer: list = []

        def enter(module, args):
            outer.append(stash.get("stack"))
            stash["stack"] = self.path

        def leave(module, args, output):
            stash["stack"] = outer.pop() if outer else None

        module = model.get_submodule(self.path)
        return [module.register_forward_pre_hook(enter), module.register_forward_hook(leave)]


@dataclass(frozen=True)
class Output:
    """The module's output (the first item when it returns a tuple) is stage `stage`
    (only while the stack `within` runs, when given). `copy`: the model adds to that output in place
    afterwards (Falcon's parallel block), so it continues with a copy and the stage keeps the module's own."""

    path: str
    stage: str
    within: str | None = None
    copy: bool = False

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap, within, copy, muted = taps[self.stage], self.within, self.copy, mute_key(self.path)

        def hook(module, args, output):
            if not _in_stack(stash, within) or stash.get(muted, False):
                return output
            shown = tap(_first(output))
            return _with_first(output, shown.clone() if copy else shown)

        return [model.get_submodule(self.path).register_forward_hook(hook)]


@dataclass(frozen=True)
class Input:
    """The module's first input is stage `stage` (a replacement reaches only this module)."""

    path: str
    stage: str
    within: str | None = None

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap, within = taps[self.stage], self.within

        def hook(module, args, kwargs):
            if not _in_stack(stash, within):
                return None
            x = _input_of(args, kwargs)
            new = tap(x)
            return None if new is x else _with_input(args, kwargs, new)

        return [model.get_submodule(self.path).register_forward_pre_hook(hook, with_kwargs=True)]


@dataclass(frozen=True)
class FusedQKV:
    """A fused projection's output is three stages, q, k and v, and with `splits` their head splits too.

    `layout` 'blocks': Q, then K, then V along the last axis, of widths `widths` (GPT-2's c_attn,
    Phi-3's qkv_proj with fewer K/V heads); 'heads': per head [q | k | v] of `head_dim` each
    (GPT-NeoX's query_key_value). A replaced part is put back where it came from.
    """

    path: str
    stages: tuple[str, str, str]
    layout: str = "blocks"
    widths: tuple[int, int, int] | None = None
    head_dim: int = 0
    splits: tuple[str, str, str] | None = None

    def _parts(self, output: Tensor) -> list[Tensor]:
        if self.layout == "heads":
            batch, length, width = output.shape
            heads = output.view(batch, length, width // (3 * self.head_dim), 3 * self.head_dim)  # (B, T, H, 3·Dh)
            return [p.reshape(batch, length, -1) for p in heads.split(self.head_dim, dim=-1)]  # 3 × (B, T, H·Dh)
        widths = self.widths or (output.shape[-1] // 3,) * 3
        return list(output.split(list(widths), dim=-1))  # (B, T, Wq), (B, T, Wk), (B, T, Wv)

    def _join(self, parts: list[Tensor]) -> Tensor:
        if self.layout == "heads":
            batch, length, _ = parts[0].shape
            per_head = [p.reshape(batch, length, -1, self.head_dim) for p in parts]  # 3 × (B, T, H, Dh)
            return torch.cat(per_head, dim=-1).reshape(batch, length, -1)  # (B, T, H·3·Dh)
        return torch.cat(parts, dim=-1)  # (B, T, Wq + Wk + Wv)

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        chosen = [taps[s] for s in self.stages]
        split_taps = [taps[s] for s in self.splits] if self.splits else None
        head_dim = self.head_dim

        def hook(module, args, output):
            parts = self._parts(output)
            if _in_graph(output):  # the model splits the output itself: q, k and v get their slices' gradients
                return _joined(output, self._parts, parts, chosen)
            shown = [tap(part) for tap, part in zip(chosen, parts)]
            if split_taps is not None:
                for i, (tap, part) in enumerate(zip(split_taps, shown)):
                    batch, length, width = part.shape
                    heads = part.view(batch, length, width // head_dim, head_dim).transpose(1, 2)  # (B, H, T, Dh)
                    new = tap(heads)
                    if new is not heads:
                        shown[i] = new.transpose(1, 2).reshape(batch, length, width)  # (B, T, H·Dh)
            if all(a is b for a, b in zip(shown, parts)):
                return output
            return self._join(shown)

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
        tap, split_tap, head_dim, muted = taps[self.stage], taps[self.split], self.head_dim, mute_key(self.path)

        def hook(module, args, output):
            if stash.get(muted, False):
                return output
            output = tap(output)
            batch, length, width = output.shape
            heads = output.view(batch, length, width // head_dim, head_dim).transpose(1, 2)  # (B, H, T, Dh)
            if _in_graph(output):  # the model makes its own split: this one gets the output's gradient, split
                return _joined(output, lambda g: [g.view(batch, length, width // head_dim, head_dim).transpose(1, 2)],
                               [heads], [split_tap])
            shown = split_tap(heads)
            if shown is heads:
                return output
            return shown.transpose(1, 2).reshape(batch, length, width)  # (B, T, H·Dh)

        return [model.get_submodule(self.path).register_forward_hook(hook)]


@dataclass(frozen=True)
class HeadParts:
    """A projection's output viewed per head and cut along each head's features, each named part a stage:
    (B, T, H·W) or (B, 1, T, H·W) → (B, H, T, w₁), (B, H, T, w₂) … (multi-head latent attention: the query's
    part without and with rotary positions, the decompressed K_nope and V). `stage` (when given) shows the
    whole output first; a part named "" is not shown; a replaced part is put back into the output."""

    path: str
    stage: str | None
    parts: tuple[str, ...]
    widths: tuple[int, ...]
    heads: int

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        whole = taps[self.stage] if self.stage else None
        part_taps = [taps[p] if p else None for p in self.parts]
        widths, heads = list(self.widths), self.heads

        def hook(module, args, output):
            if whole is not None:
                output = whole(output)
            shape = output.shape
            batch, length = shape[0], shape[-2]
            per_head = output.reshape(batch, length, heads, -1).transpose(1, 2)  # (B, H, T, W)
            pieces = torch.split(per_head, widths, dim=-1)
            shown = [tap(p) if tap is not None else p for tap, p in zip(part_taps, pieces)]
            if all(s is p for s, p in zip(shown, pieces)):
                return output
            return torch.cat(shown, dim=-1).transpose(1, 2).reshape(shape)  # back to the model's layout

        return [model.get_submodule(self.path).register_forward_hook(hook)]


# Inside `sums_in_graph()` (a backward pass) a residual sum the hook makes beside the model's own is joined to
# the model's graph, so its stage receives the gradient of the model's sum (`_JoinedSum`).
_GRAPH = ThreadFlag()
_SHOWN = threading.local()  # id(leaf) -> (leaf, the same values in the model's graph), inside sums_in_graph()


@contextmanager
def sums_in_graph() -> Iterator[dict]:
    """Residual stages receive the gradient of the model's own sum during backward (in this thread). Yields
    id(leaf) → (leaf, its values in the model's graph) for each stage shown beside the model's own tensors, so
    that an objective on such a stage differentiates through the model (`sessions.backward.stage_sum`); let go
    of when the block ends."""
    shown: dict = {}
    before = getattr(_SHOWN, "shown", None)
    _SHOWN.shown = shown
    try:
        with _GRAPH.set():
            yield shown
    finally:
        _SHOWN.shown = before
        shown.clear()


class _Joined(torch.autograd.Function):
    """A module's output unchanged forward; backward, each leaf (a stage shown beside the model's own tensors:
    a residual sum, q, k and v of a fused projection, a head split) receives `cut(gradient of the output)`, its
    part of the gradient, so its stage has the gradient of the values it shows, and nothing flows twice."""

    @staticmethod
    def forward(ctx, output, cut, *leaves):
        ctx.cut = cut
        return output.view_as(output)

    @staticmethod
    def backward(ctx, grad):
        return (grad, None, *ctx.cut(grad))


def _joined(output: Tensor, cut, parts: Sequence[Tensor], taps: Sequence[Tap]) -> Tensor:
    """In a backward pass: each of `parts` shown by its tap as a leaf, joined to `output` (see `_Joined`)."""
    leaves = [part.detach().requires_grad_(True) for part in parts]
    shown = getattr(_SHOWN, "shown", None)
    for tap, leaf, part in zip(taps, leaves, parts):
        if shown is not None:
            shown[id(leaf)] = (leaf, part)
        tap(leaf)
    return _Joined.apply(output, cut, *leaves)


def _in_graph(tensor) -> bool:
    """Whether a backward pass runs (`sums_in_graph`) and `tensor` is part of its graph."""
    return getattr(tensor, "requires_grad", False) and _GRAPH.on  # the cheaper test first: no grad, no flag read


@dataclass(frozen=True)
class SumResidual:
    """A residual sum the model makes between modules: the stream + `scale` × the output of `path`.

    The model adds its stream (what the module at `stream_path` read: the sublayer's norm or
    the sublayer itself) to a sublayer's output after the module at `path` returns; the hook
    shows that sum as stage `resid`, and a replaced sum is handed back as (resid − stream) / scale,
    so that the model's own sum gives it.
    """

    path: str
    stream_path: str
    resid: str
    scale: float = 1.0

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        resid_tap, key, scale = taps[self.resid], ("stream", self.resid), self.scale

        def remember(module, args, kwargs):
            stash[key] = _input_of(args, kwargs)

        def hook(module, args, output):
            out = _first(output)
            stream = stash.pop(key, None)
            if stream is None or stream.numel() != out.numel():
                return output
            # OPT's attention output is (B, T, D), its stream there (B·T, D); elsewhere the shapes are the same and
            # no reshape is called (a torch call at two stages of every layer)
            stream_shape = stream.shape
            flat = out if out.shape == stream_shape else out.reshape(stream_shape)
            resid = stream + flat * scale if scale != 1.0 else stream + flat  # (B, T, D): the model's own sum
            if _in_graph(out):  # ∂L/∂(the model's sum) = ∂L/∂out ÷ scale
                shape = resid.shape
                return _with_first(output, _joined(out, lambda g: [g.reshape(shape) / scale if scale != 1.0 else
                                                                  g.reshape(shape)], [resid], [resid_tap]))
            shown = resid_tap(resid)
            if shown is resid:
                return output
            return _with_first(output, ((shown - stream) / scale).reshape(out.shape))

        return [model.get_submodule(self.stream_path).register_forward_pre_hook(remember, with_kwargs=True),
                model.get_submodule(self.path).register_forward_hook(hook)]


@dataclass(frozen=True)
class Router:
    """A mixture-of-experts router's output: its logits (tokens × experts) and, when it returns the choice,
    the chosen experts' weights spread over every expert (0 where an expert was not chosen)."""

    path: str
    logits: str
    routing: str | None = None

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        logits_tap = taps[self.logits]
        routing_tap = taps[self.routing] if self.routing else None

        def hook(module, args, output):
            if not isinstance(output, tuple):
                return logits_tap(output)
            logits = logits_tap(output[0])
            if routing_tap is not None and len(output) >= 3:
                weights, chosen = output[1], output[2]
                # (T, E): each token's weight on each expert, the top-k chosen ones non-zero
                dense = torch.zeros(logits.shape, dtype=weights.dtype, device=weights.device)
                routing_tap(dense.scatter(-1, chosen.long(), weights))
            return (logits, *output[1:])

        return [model.get_submodule(self.path).register_forward_hook(hook)]


@dataclass(frozen=True)
class EachExpert:
    """Each expert's own output for the tokens routed to it, (token, expert, model), 0 where a token did not
    choose the expert.

    transformers' experts modules take (hidden (T, D), chosen experts (T, k), their weights (T, k)) and return
    the weighted sum, which is the next stage. To show every expert where it runs, the module's own code runs
    once more per chosen expert, on just the tokens that chose it, with weight 1: the same work again, once.
    A replaced tensor flows on: the experts' sum is then Σ_e weight · the replacement.
    """

    path: str
    stage: str

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap = taps[self.stage]

        def hook(module, args, kwargs, output):
            values = [*args, *kwargs.values()]
            if len(values) < 3 or not all(isinstance(v, Tensor) for v in values[:3]) or values[0].dim() != 2:
                return output
            hidden, chosen, weights = values[:3]
            experts = _expert_count(module)
            each = hidden.new_zeros(hidden.shape[0], experts, hidden.shape[-1])
            for e in (e for e in torch.unique(chosen).tolist() if 0 <= e < experts):
                tokens = (chosen == e).any(dim=-1).nonzero().flatten()  # (n,) the tokens that chose e
                one = torch.ones(len(tokens), 1, dtype=weights.dtype, device=weights.device)
                each[tokens, e] = module.forward(hidden[tokens], torch.full_like(one, e, dtype=chosen.dtype),
                                                 one).to(each.dtype)
            shown = tap(each)
            if shown is each:
                return output
            dense = torch.zeros(hidden.shape[0], experts, dtype=weights.dtype, device=weights.device)
            dense = dense.scatter(-1, chosen.long().clamp(max=experts - 1), weights * (chosen < experts))
            return _with_first(output, (dense.unsqueeze(-1) * shown).sum(1).to(hidden.dtype))

        return [model.get_submodule(self.path).register_forward_hook(hook, with_kwargs=True)]


def _expert_count(module: nn.Module) -> int:
    count = getattr(module, "num_experts", None)
    if isinstance(count, int):
        return count
    return next(p.shape[0] for p in module.parameters() if p.dim() == 3)


@dataclass(frozen=True)
class ModelLogits:
    """The logits the whole model returns (after a final soft cap or scaling that no module makes); `field`
    names them in its output (CLIP's `logits_per_image`)."""

    stage: str
    field: str = "logits"

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        tap = taps[self.stage]

        def hook(module, args, output):
            logits = getattr(output, self.field, None)
            if isinstance(logits, Tensor):
                new = tap(logits)
                if new is not logits:
                    setattr(output, self.field, new)
            return output

        return [model.register_forward_hook(hook)]


Hook = Output | Input | FusedQKV | ProjectionSplit | HeadParts | SumResidual | Router | ModelLogits | StackMarker


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
