"""The switches a tapped pass of an SDPA module needs, switched on for one forward and always restored.

While a `TappedPass` is entered (in the thread running the forward):
- `torch.backends.mha.set_fastpath_enabled(False)`: nn.MultiheadAttention and the
  nn.Transformer layers otherwise run `torch._native_multi_head_attention` /
  `torch._transformer_encoder_layer_fwd`, which call nothing a tap could see;
- `torch.nn.functional.scaled_dot_product_attention` is a dispatcher. That is also the
  name `F.multi_head_attention_forward` calls (a global of torch.nn.functional), which a
  TorchFunctionMode would not see from inside that function's own handling; globals
  of the model's modules bound to the original (`from torch.nn.functional import
  scaled_dot_product_attention`) are pointed at the dispatcher too;
- `F._in_projection_packed` / `F._in_projection` show Q, K and V, which
  nn.MultiheadAttention makes from one packed `in_proj_weight`, as stages of their own;
- forward hooks on the model's MultiheadAttention modules (their output, and the
  attention weights rebuilt from the tapped softmax when the caller asked for them) and
  on the norms and feed-forward of recognised nn.Transformer layers.

The dispatchers act only for the thread that entered a pass; any other caller gets the
original function. Everything is restored in `finally`, also when the forward raises.
"""

from __future__ import annotations

import inspect
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from tfdebug.adapters.torch_nn.math import check_call, decomposed_sdpa
from tfdebug.adapters.torch_nn.names import PROJECTION_SPECS, Naming, StageSpec, attention_spec, mask_words, out_spec, sequence_spec

ORIGINAL_SDPA = F.scaled_dot_product_attention
_ORIGINAL_PACKED = F._in_projection_packed
_ORIGINAL_SEPARATE = F._in_projection
_MODULE_FILE = nn.Module.__call__.__code__.co_filename
_TORCH_NN_DIR = _MODULE_FILE.rsplit("modules", 1)[0]

_switch_lock = threading.Lock()
_active: dict[int, "TappedPass"] = {}   # thread id -> the pass it runs
_saved: dict[str, Any] = {}


class StageSink:
    """Where a pass's stages go: the taps by name. `discovering` creates a tap the first time a stage runs."""

    def __init__(self, make_tap: Callable[[str, StageSpec, dict, Tensor], nn.Module], taps: dict[str, nn.Module]):
        self.make_tap = make_tap
        self.taps = taps

    def hooked(self, names: list[str]) -> bool:
        return any(getattr(self.taps.get(n), "hook", None) is not None for n in names)


@dataclass
class _AttentionCall:
    """One running nn.MultiheadAttention call: its stage prefix and what its caller asked for."""

    prefix: str
    need_weights: bool
    average: bool
    batched: bool
    streams: tuple[str, str] = ("", "")
    probs: Tensor | None = None


@dataclass
class TappedPass:
    """One forward of a wrapped module with its attention decomposed and its stages tapped (a context manager)."""

    model: nn.Module
    naming: Naming
    sink: StageSink
    discovering: bool = False
    call_stages: dict[str, list[str]] = field(default_factory=dict)   # call prefix -> its stage names
    _counts: dict[str, int] = field(default_factory=dict)
    _calls: list[_AttentionCall] = field(default_factory=list)
    _handles: list = field(default_factory=list)
    _globals: list[tuple[dict, str]] = field(default_factory=list)

    # ----- entering and leaving -------------------------------------------------------
    def __enter__(self) -> "TappedPass":
        thread = threading.get_ident()
        with _switch_lock:
            if thread in _active:
                raise RuntimeError("A tapped pass is already running in this thread.")
            if not _active:
                _switch_on()
            _active[thread] = self
        try:
            self._point_globals()
            self._add_hooks()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            for handle in self._handles:
                handle.remove()
            for namespace, name in self._globals:
                if namespace.get(name) is dispatch_sdpa:
                    namespace[name] = ORIGINAL_SDPA
        finally:
            self._handles, self._globals, self._calls = [], [], []
            with _switch_lock:
                _active.pop(threading.get_ident(), None)
                if not _active:
                    _switch_off()

    def _point_globals(self) -> None:
        for module in self.model.modules():
            namespace = getattr(sys.modules.get(type(module).__module__), "__dict__", None)
            if namespace is None or namespace is F.__dict__:
                continue
            for name, value in list(namespace.items()):
                if value is ORIGINAL_SDPA:
                    namespace[name] = dispatch_sdpa
                    self._globals.append((namespace, name))

    def _add_hooks(self) -> None:
        for attention in self.naming.attentions:
            self._handles.append(attention.register_forward_pre_hook(self._attention_pre, with_kwargs=True))
            self._handles.append(attention.register_forward_hook(self._attention_post, with_kwargs=True,
                                                                 always_call=True))
        for hook in self.naming.hooks:
            if hook.before:
                self._handles.append(hook.module.register_forward_pre_hook(
                    lambda m, args, h=hook: (self.stage(h.name, args[0], lambda t: sequence_spec(h.spec, t)),
                                             *args[1:])))
            else:
                self._handles.append(hook.module.register_forward_hook(
                    lambda m, args, out, h=hook: self.stage(h.name, out, lambda t: sequence_spec(h.spec, t))))

    # ----- stages ---------------------------------------------------------------------
    def stage(self, name: str, tensor: Tensor, spec: Callable[[Tensor], StageSpec], prefix: str | None = None,
              streams: tuple[str, str] | None = None) -> Tensor:
        """`tensor` through the tap called `name` (created now when discovering; left alone when it has none)."""
        tap = self.sink.taps.get(name)
        if tap is None:
            if not self.discovering:
                return tensor
            tap = self.sink.make_tap(name, spec(tensor), self._tokens(name, tensor, spec, streams), tensor)
        if prefix is not None and self.discovering:
            self.call_stages.setdefault(prefix, [])
            if name not in self.call_stages[prefix]:
                self.call_stages[prefix].append(name)
        return tap(tensor)

    def _tokens(self, name: str, tensor: Tensor, spec, streams) -> dict[str, str]:
        """Which token stream each token axis of the stage indexes (streams of the nearest named prefix)."""
        parts = name.split(".")
        while streams is None and len(parts) > 1:
            parts.pop()
            streams = self.naming.streams.get(".".join(parts))
        query, key = streams or ("", "")
        out = {}
        for axis in spec(tensor).axes:
            stream = key if axis == "key" else query if axis in ("token", "query") else ""
            if stream:
                out[axis] = stream
        return out

    def _call_prefix(self, module_prefix: str) -> str:
        n = self._counts.get(module_prefix, 0)
        self._counts[module_prefix] = n + 1
        return module_prefix if n == 0 else f"{module_prefix}.call{n}"

    def _caller_prefix(self) -> tuple[str, tuple[str, str], _AttentionCall | None]:
        """The prefix of an attention call: the running MultiheadAttention's, else the nearest module's on the stack."""
        frame = sys._getframe(2)
        while frame is not None:
            owner = frame.f_locals.get("self") if frame.f_code.co_name != "<module>" else None
            prefix = self.naming.prefix_of(owner) if isinstance(owner, nn.Module) else None
            if prefix is not None:
                if isinstance(owner, nn.MultiheadAttention) and self._calls:
                    call = self._calls[-1]
                    return call.prefix, call.streams, call
                return self._call_prefix(prefix), self.naming.streams.get(prefix, ("", "")), None
            frame = frame.f_back
        return self._call_prefix("attn"), ("", ""), None

    def attention(self, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                  enable_gqa=False) -> Tensor:
        """One scaled_dot_product_attention call, decomposed and tapped (or fused when nothing listens)."""
        prefix, streams, call = self._caller_prefix()
        need_probs = call is not None and call.need_weights
        if not self.discovering and not need_probs and not self.sink.hooked(self.call_stages.get(prefix, [])):
            check_call(dropout_p, is_causal, attn_mask, prefix)
            return ORIGINAL_SDPA(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                 enable_gqa=enable_gqa)
        words = mask_words(is_causal, attn_mask)
        groups = query.size(-3) // max(1, key.size(-3)) if query.dim() >= 3 else 1

        def tap(stage: str, tensor: Tensor) -> Tensor:
            out = self.stage(f"{prefix}.{stage}", tensor,
                             lambda t: attention_spec(stage, t, scale=scale, mask=words, groups=groups),
                             prefix=prefix, streams=streams)
            if stage == "probs" and call is not None:
                call.probs = out
            return out

        return decomposed_sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa,
                               tap=tap, where=prefix)

    def projections(self, q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Q, K and V of a MultiheadAttention call as stages of their own."""
        if not self._calls:
            return q, k, v
        call = self._calls[-1]
        return tuple(self.stage(f"{call.prefix}.{role}", t, lambda _t, r=role: PROJECTION_SPECS[r],
                                prefix=call.prefix, streams=call.streams) for role, t in zip("qkv", (q, k, v)))

    # ----- nn.MultiheadAttention --------------------------------------------------------
    def _attention_pre(self, module: nn.MultiheadAttention, args: tuple, kwargs: dict):
        bound = _MHA_SIGNATURE.bind(*args, **kwargs)
        bound.apply_defaults()
        prefix = self.naming.prefix_of(module)
        call = _AttentionCall(prefix=self._call_prefix(prefix), streams=self.naming.streams.get(prefix, ("", "")),
                              need_weights=bool(bound.arguments["need_weights"]),
                              average=bool(bound.arguments["average_attn_weights"]),
                              batched=bound.arguments["query"].dim() == 3)
        self._calls.append(call)
        if not call.need_weights:
            return None
        # The weights come from the tapped softmax: torch's need_weights path computes them without SDPA.
        bound.arguments["need_weights"] = False
        return bound.args, bound.kwargs

    def _attention_post(self, module: nn.MultiheadAttention, args: tuple, kwargs: dict, output):
        call = self._calls.pop() if self._calls else None
        if call is None or output is None:
            return None
        out = self.stage(f"{call.prefix}.out", output[0], lambda t: out_spec(t, module.batch_first),
                         prefix=call.prefix, streams=call.streams)
        weights = output[1]
        if call.need_weights and call.probs is not None:
            weights = call.probs.mean(dim=1) if call.average else call.probs
            if not call.batched:
                weights = weights.squeeze(0)
        return out, weights


_MHA_SIGNATURE = inspect.signature(nn.MultiheadAttention.forward).replace(
    parameters=list(inspect.signature(nn.MultiheadAttention.forward).parameters.values())[1:])


def _current() -> TappedPass | None:
    return _active.get(threading.get_ident()) if _active else None


def dispatch_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                  enable_gqa=False):
    """Stands in for F.scaled_dot_product_attention while a pass is tapped: decomposed in that pass's thread."""
    tapped = _current()
    if tapped is None:
        return ORIGINAL_SDPA(query, key, value, attn_mask, dropout_p, is_causal, scale=scale, enable_gqa=enable_gqa)
    return tapped.attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _dispatch_packed(q, k, v, w, b=None):
    tapped = _current()
    out = _ORIGINAL_PACKED(q, k, v, w, b)
    return out if tapped is None else tapped.projections(*out)


def _dispatch_separate(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    tapped = _current()
    out = _ORIGINAL_SEPARATE(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v)
    return out if tapped is None else tapped.projections(*out)


def _switch_on() -> None:
    _saved["fastpath"] = torch.backends.mha.get_fastpath_enabled()
    try:
        torch.backends.mha.set_fastpath_enabled(False)
        F.scaled_dot_product_attention = dispatch_sdpa
        F._in_projection_packed = _dispatch_packed
        F._in_projection = _dispatch_separate
    except BaseException:
        _switch_off()
        raise


def _switch_off() -> None:
    F.scaled_dot_product_attention = ORIGINAL_SDPA
    F._in_projection_packed = _ORIGINAL_PACKED
    F._in_projection = _ORIGINAL_SEPARATE
    torch.backends.mha.set_fastpath_enabled(_saved.pop("fastpath", True))
