"""Attention of a Hugging Face model, computed the way eager attention computes it, with a tap at every sub-stage.

transformers picks a model's attention function by name through `AttentionInterface`
and builds its mask through `AttentionMaskInterface`. `tapped_attention(model, sites)`
registers one function under the name "tfdebug" (and eager's additive mask under the
same name: without it transformers builds no mask for an unknown name and causal models
would see the future), switches every config of the model to it, and restores the
original names and registrations in `finally`, also when the forward raises.

The function finds the taps of the module calling it in `sites` (module id →
`AttentionSite`); a module without a site gets the same arithmetic and no taps.

In a generation with a KV cache (`cached`), a model configured with a fused kernel
(`OWN_KERNELS`: sdpa) computes each step's context with that kernel, as its own
`generate()` does, so a generated token's logits are the ones `generate()` returns; the
tokens² stages stay recipes of eager's arithmetic on the same tapped query and key,
computed when looked at. An edited plane (or repeat) is what the context then reads.
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Iterator, Mapping

import torch
from torch import Tensor, nn

from tfdebug.adapters.hf import inpass
from tfdebug.adapters.hf.conventions import FLOAT32_SCORES
from tfdebug.adapters.hf.kernels import EAGER, check_kernel
from tfdebug.adapters.hf.planes import NOTED, WHOLE, noted_attention, split_mask_bias
from tfdebug.core.errors import UnsupportedModelError
from tfdebug.core.gradient_planes import note_context
from tfdebug.core.recipes import Scores, context_by_heads, is_plane, materialized, step
from tfdebug.core.repeats import Repeated
from tfdebug.core.tap import Tap

IMPLEMENTATION = "tfdebug"
#: the model's own kernels a cached step's context may be computed with
OWN_KERNELS = frozenset({"sdpa"})

# Keywords the function computes with.
HANDLED_KEYWORDS = frozenset({"position_bias", "softcap", "s_aux"})
# Bookkeeping keywords the models pass along that change nothing in eager's arithmetic
# (the causal flag and the sliding window are already in the mask transformers builds).
IGNORED_KEYWORDS = frozenset({
    "position_ids", "cache_position", "output_attentions", "output_hidden_states", "use_cache", "is_causal",
    "past_key_values", "cache", "return_dict", "sliding_window", "token_type_ids", "output_router_logits",
    "deterministic",
})


@dataclass
class AttentionSite:
    """The taps of one attention module (keyed by stage suffix: 'scores', 'probs' …) and how it computes.

    `rotary`: the query and key arrive rotated (their splits are tapped at the projections,
    here they are `q_rotary`/`k_rotary`); `bias`: a position bias added to the scores is shown;
    `cached`: the model runs with a KV cache (generation), so the key and value arriving
    here are the cache's contents after this step's update (after RoPE): `cache_k`/`cache_v`.
    """

    taps: Mapping[str, Tap]
    rotary: bool = False
    #: the splits arrive at the projections (fused or rotated models); here only the rotated q/k are tapped
    split_upstream: bool = False
    bias: bool = False
    cached: bool = False
    #: the tap of a position bias the model adds with its mask in one tensor (Falcon-RW's 'alibi'), or "": the
    #: mask is split into that bias and the mask proper (`split_mask_bias`)
    mask_bias: str = ""
    #: the attention function the model itself runs with (its configured implementation, by name), when a cached
    #: step computes its context with it: "" where tfdebug's eager arithmetic computes every step's context
    own: str = ""


def _identity(x: Tensor) -> Tensor:
    return x


class _NoTaps(dict):
    def __missing__(self, key):
        return _identity


_NO_SITE = AttentionSite(_NoTaps())
_SITES: dict[int, AttentionSite] = {}
# While a probe runs (hf_probe), every call of the function is reported here: (module, query, key, value, kwargs).
PROBE: list | None = None
_LOCK = threading.Lock()
_ACTIVE: dict[str, int] = {}  # registered name -> how many models run with it right now
def repeat_kv(x: Tensor, n_rep: int) -> Tensor:
    """(B, H_kv, T, Dh) → (B, H_kv·n_rep, T, Dh): each K/V head serves n_rep query heads."""
    batch, kv_heads, length, head_dim = x.shape
    x = x[:, :, None, :, :].expand(batch, kv_heads, n_rep, length, head_dim)
    return x.reshape(batch, kv_heads * n_rep, length, head_dim)  # (B, H, T, Dh)


def check_keywords(module: nn.Module, kwargs: Mapping) -> None:
    """Refuse, in one sentence, a keyword this function does not implement (never compute silently wrong)."""
    for key, value in kwargs.items():
        if value is not None and key not in HANDLED_KEYWORDS and key not in IGNORED_KEYWORDS:
            raise UnsupportedModelError(
                "{module} passes the attention keyword '{key}', which tfdebug's tapped "
                "attention does not implement, so it cannot show this model's attention faithfully.",
                id="hf.unknown_attention_keyword", module=type(module).__name__, key=key)


def tapped_attention_forward(module: nn.Module, query: Tensor, key: Tensor, value: Tensor,
                             attention_mask: Tensor | None, scaling: float | None = None, dropout: float = 0.0,
                             **kwargs):
    """What transformers' eager attention computes, one tapped line per sub-stage.

    query: (B, H, Tq, Dh); key, value: (B, H_kv, Tk, Dh); attention_mask: additive (B, 1, Tq, Tk)
    with finfo.min at masked cells, or None. Returns ((B, Tq, H, Dh), probabilities).
    """
    if PROBE is not None:
        PROBE.append((module, query, key, value, attention_mask, scaling, dict(kwargs)))
    else:
        check_keywords(module, kwargs)
    site = _SITES.get(id(module), _NO_SITE)
    taps = site.taps
    query, key, value = _tapped_inputs(site, query, key, value)
    received = query, key, value  # what the check in the pass hands the model's own function (`inpass`)
    groups = query.shape[1] // key.shape[1]
    qk_key = key
    position_bias, softcap, sinks = kwargs.get("position_bias"), kwargs.get("softcap"), kwargs.get("s_aux")
    as_recipes = site is not _NO_SITE and sinks is None and not WHOLE.on  # the planes computed when looked at
    own_value = value
    if groups > 1:  # grouped-query attention: with the planes as recipes, the repeats too (never copied here)
        repeat = Repeated if as_recipes else repeat_kv
        repeated = repeat(key, groups)
        key = taps["k_repeat"](repeated)  # (B, H, Tk, Dh)
        qk_key = qk_key if key is repeated else key  # an edited repeat is what the scores read
        repeated_value = repeat(value, groups)
        value = taps["v_repeat"](repeated_value)  # (B, H, Tk, Dh)
        own_value = own_value if value is repeated_value else None
    if scaling is None:
        scaling = query.size(-1) ** -0.5
    dtype = query.dtype
    if getattr(getattr(module, "config", None), "model_type", None) in FLOAT32_SCORES:
        query, key, qk_key = query.float(), key.float(), qk_key.float()  # as the family's own: scores in float32
    if attention_mask is not None and attention_mask.shape[-1] != key.shape[-2]:
        attention_mask = attention_mask[:, :, :, : key.shape[-2]]
    backing = context = None
    by_kernel = False
    if as_recipes:
        probs, untouched = _planes_as_recipes(site, taps, query, qk_key, attention_mask, scaling, position_bias,
                                              softcap, dtype)
        # A cached step of a model that runs a fused kernel: its context is the kernel's on the tapped query, key
        # and value, unless an edit (or eager's own float32 scores) made the planes something else.
        by_kernel = (untouched and own_value is not None and bool(site.own) and received[1] is qk_key
                     and not (module.training and dropout > 0))
        if by_kernel:
            context = _own_context(site.own, module, query, qk_key, own_value, attention_mask, scaling)
    elif site is not _NO_SITE and sinks is None and NOTED.on and not (module.training and dropout > 0):
        probs, context, backing = noted_attention(site, taps, query, key, qk_key, value, attention_mask, scaling,
                                                   position_bias, softcap, dtype)
    else:
        probs = _planes(site, taps, query, key, attention_mask, scaling, position_bias, softcap, sinks, dtype,
                        value.dtype)
    if context is None and is_plane(probs) and not (module.training and dropout > 0):
        each = inpass.comparer(module, *received, attention_mask, scaling, dropout, kwargs)
        context = context_by_heads(probs, value, each=each)  # (B, H, Tq, Dh): one block of the plane at a time
    elif not by_kernel:
        inpass.missed(module, "its planes were computed whole (an edited stage, sinks or a backward)")
        if context is None:  # else made with the planes (`noted_attention`)
            probs = nn.functional.dropout(materialized(probs), p=dropout, training=module.training)
            context = torch.matmul(probs, value)  # (B, H, Tq, Dh)
    if backing is not None:
        context = note_context(context, backing)  # its gradient, dO, is what the gradient planes read
    elif not context.requires_grad:
        # (B, H, Tq, Dh) over a (B, Tq, H, Dh) buffer: the heads' merge the model makes next is then a view of what
        # the tap keeps, not a second copy of the same values (19 MB a layer at 8,192 tokens on SmolLM-135M's shape)
        context = context.transpose(1, 2).contiguous().transpose(1, 2)
    context = taps["context"](context)  # (B, H, Tq, Dh)
    return context.transpose(1, 2).contiguous(), probs  # (B, Tq, H, Dh): no copy where the context was laid out so


def kernel_attention_forward(kernel: str):
    """The attention function that runs transformers' own `kernel` between tapped inputs and a tapped context.

    What the kernel computes inside is not shown (it materialises no scores or probabilities);
    the grouped-query repeat is the kernel's own too."""
    from transformers import AttentionInterface

    own = AttentionInterface._global_mapping[kernel]

    def forward(module: nn.Module, query: Tensor, key: Tensor, value: Tensor, attention_mask: Tensor | None,
                **kwargs):
        site = _SITES.get(id(module), _NO_SITE)
        query, key, value = _tapped_inputs(site, query, key, value)
        output, weights = own(module, query, key, value, attention_mask, **kwargs)  # (B, Tq, H, Dh)
        context = site.taps["context"](output.transpose(1, 2))  # (B, H, Tq, Dh), as eager's context tap
        return context.transpose(1, 2).contiguous(), weights  # (B, Tq, H, Dh)
    return forward


def _tapped_inputs(site: AttentionSite, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The query, key and value as attention receives them, each through its tap (what an edit replaces)."""
    taps = site.taps
    if site.cached:  # every key and value so far, this step's appended (the new ones' splits are upstream)
        query = taps["q_rotary" if site.rotary else "q_split"](query)  # (B, H, Tq, Dh)
        key = taps["cache_k"](key)  # (B, H_kv, Tk, Dh): Tk = all tokens so far
        value = taps["cache_v"](value)  # (B, H_kv, Tk, Dh)
    elif site.rotary:
        query = taps["q_rotary"](query)  # (B, H, Tq, Dh) after the rotation
        key = taps["k_rotary"](key)  # (B, H_kv, Tk, Dh)
        if not site.split_upstream:  # a fused projection's splits are all shown there
            value = taps["v_split"](value)  # (B, H_kv, Tk, Dh)
    else:
        query = taps["q_split"](query)  # (B, H, Tq, Dh)
        key = taps["k_split"](key)  # (B, H, Tk, Dh)
        value = taps["v_split"](value)  # (B, H, Tk, Dh)
    return query, key, value


def _own_context(own: str, module: nn.Module, query: Tensor, key: Tensor, value: Tensor,
                 attention_mask: Tensor | None, scaling: float) -> Tensor:
    """The context (B, H, Tq, Dh) of the model's own attention function `own` on the query, key and value as
    received, with the mask that function would have been given (`kernel_mask`)."""
    from transformers import AttentionInterface

    mask = kernel_mask(module, attention_mask, query.shape[-2], key.shape[-2])
    out, _ = AttentionInterface._global_mapping[own](module, query, key, value, mask, scaling=scaling, dropout=0.0)
    return out.transpose(1, 2)  # (B, H, Tq, Dh)


_LAST_MASK = threading.local()  # the mask of the forward running on this thread, and the kernel's


def kernel_mask(module: nn.Module, mask: Tensor | None, rows: int, keys: int) -> Tensor | None:
    """The mask transformers' sdpa mask builder gives the kernel where eager's builder gives the additive `mask`
    (B, 1, rows, keys), finfo.min at a masked cell: None where nothing is masked but the future of a causal module
    (one query row, or as many rows as keys under the causal pattern: the kernel then applies causality itself),
    else a boolean mask, True where a query may attend. Made once per mask (every layer of a forward reads the same
    one): one pass over it and one read back to the host a forward."""
    if mask is None:
        return None
    last = getattr(_LAST_MASK, "seen", None)
    if last is not None and last[0]() is mask:
        return last[1]
    allowed = mask == 0  # (B, 1, rows, keys)
    if rows == 1:
        skippable = bool(allowed.all())
    elif rows == keys and getattr(module, "is_causal", False):
        skippable = torch.equal(allowed, torch.ones(rows, keys, dtype=torch.bool, device=mask.device).tril()
                                .expand_as(allowed))
    else:
        skippable = False
    out = None if skippable else allowed
    _LAST_MASK.seen = (weakref.ref(mask), out)
    return out


def _planes_as_recipes(site: AttentionSite, taps, query: Tensor, key: Tensor, attention_mask: Tensor | None,
                       scaling: float, position_bias: Tensor | None, softcap: float | None, dtype: torch.dtype):
    """The tokens² stages as recipes (tfdebug.core.recipes): each tap sees a plane computed when
    looked at; a stage the user edits comes back as a tensor, and what follows reads it."""
    untouched = True

    def through(tap: str, plane):
        nonlocal untouched
        out = taps[tap](plane)
        untouched = untouched and out is plane
        return out

    scores = through("scores", Scores(query, key))  # (B, H, Tq, Tk): Q·Kᵀ
    scores = through("scaled", step(scores, "scale", value=scaling))
    if position_bias is not None:
        biased = step(scores, "bias", tensor=position_bias)
        scores = through("position_bias", biased) if site.bias else biased
    if softcap is not None:
        scores = through("softcap", step(scores, "softcap", value=softcap))
    if attention_mask is not None and site.mask_bias:
        bias, attention_mask = split_mask_bias(attention_mask)
        scores = through(site.mask_bias, step(scores, "bias", tensor=bias))
    if attention_mask is not None:
        scores = through("masked", step(scores, "mask", tensor=attention_mask))  # finfo.min at masked cells
    # Softmax in float32 (exp() overflows in half precision); back to the query's dtype.
    probs = through("probs", step(scores, "softmax", dtype=dtype))
    return probs, untouched and position_bias is None and softcap is None and not site.mask_bias


def _planes(site: AttentionSite, taps, query: Tensor, key: Tensor, attention_mask: Tensor | None, scaling: float,
            position_bias: Tensor | None, softcap: float | None, sinks: Tensor | None, dtype: torch.dtype,
            value_dtype: torch.dtype) -> Tensor:
    """The tokens² stages computed whole, as eager attention does (no taps, or attention sinks)."""
    scores = taps["scores"](torch.matmul(query, key.transpose(2, 3)))  # (B, H, Tq, Tk)
    scores = taps["scaled"](scores * scaling)  # (B, H, Tq, Tk)
    if position_bias is not None:
        biased = scores + position_bias  # (B, H, Tq, Tk)
        scores = taps["position_bias"](biased) if site.bias else biased
    if softcap is not None:
        scores = taps["softcap"](torch.tanh(scores / softcap) * softcap)  # (B, H, Tq, Tk)
    if attention_mask is not None and site.mask_bias:
        bias, attention_mask = split_mask_bias(attention_mask)
        scores = taps[site.mask_bias](scores + bias)  # (B, H, Tq, Tk)
    if attention_mask is not None:
        scores = taps["masked"](scores + attention_mask)  # (B, H, Tq, Tk): finfo.min at masked cells
    if sinks is not None:  # gpt-oss: one learned logit per head, a column every query may put weight on
        column = sinks.reshape(1, -1, 1, 1).expand(query.shape[0], -1, query.shape[-2], -1)  # (B, H, Tq, 1)
        combined = torch.cat([scores, column.to(scores.dtype)], dim=-1)  # (B, H, Tq, Tk + 1)
        combined = combined - combined.max(dim=-1, keepdim=True).values
        with_sink = taps["sinks"](nn.functional.softmax(combined, dim=-1, dtype=combined.dtype))
        return taps["probs"](with_sink[..., :-1].to(value_dtype))  # (B, H, Tq, Tk): rows sum to 1 − sink share
    # Softmax in float32 (exp() overflows in half precision); back to the query's dtype.
    return taps["probs"](nn.functional.softmax(scores, dim=-1, dtype=torch.float32).to(dtype))


def _registered_name(kernel: str) -> str:
    return IMPLEMENTATION if kernel == EAGER else f"{IMPLEMENTATION}_{kernel}"


def _register(kernel: str) -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    name = _registered_name(kernel)
    function = tapped_attention_forward if kernel == EAGER else kernel_attention_forward(kernel)
    AttentionInterface.register(name, function)
    AttentionMaskInterface.register(name, eager_mask if kernel == EAGER
                                    else AttentionMaskInterface._global_mapping.get(kernel, eager_mask))


def _unregister(kernel: str) -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface

    AttentionInterface._global_mapping.pop(_registered_name(kernel), None)
    AttentionMaskInterface._global_mapping.pop(_registered_name(kernel), None)


def model_configs(model: nn.Module) -> list:
    """Every distinct transformers config a model's modules read their attention implementation from."""
    from transformers import PretrainedConfig

    seen: dict[int, object] = {}
    pending = [getattr(m, "config", None) for m in model.modules()]
    while pending:
        config = pending.pop()
        if isinstance(config, PretrainedConfig) and id(config) not in seen:
            seen[id(config)] = config
            pending.extend(getattr(config, key, None) for key in getattr(config, "sub_configs", {}))
    return list(seen.values())


@contextmanager
def kernel_registered(kernel: str = EAGER) -> Iterator[str]:
    """The attention function of `kernel` registered inside the block (once however many models use it at
    a time); yields the name a config switches to."""
    name = _registered_name(check_kernel(kernel))
    with _LOCK:
        if not _ACTIVE.get(name):
            _register(kernel)
        _ACTIVE[name] = _ACTIVE.get(name, 0) + 1
    try:
        yield name
    finally:
        with _LOCK:
            _ACTIVE[name] -= 1
            if not _ACTIVE[name]:
                _unregister(kernel)


@contextmanager
def implementation(model: nn.Module, name: str) -> Iterator[None]:
    """Every config of `model` reads attention implementation `name` inside the block; as before after it."""
    configs = model_configs(model)
    before = [c._attn_implementation_internal for c in configs]
    try:
        for config in configs:
            config._attn_implementation_internal = name
        yield
    finally:
        for config, earlier in zip(configs, before):
            config._attn_implementation_internal = earlier


def own_kernel(module: nn.Module) -> str:
    """The name of the attention function `module` runs with by its config, where it is one of transformers' own
    fused kernels this machine runs (not eager: that is what tfdebug's arithmetic already is); else ""."""
    from transformers import AttentionInterface

    from tfdebug.adapters.hf.kernels import kernel_available

    name = getattr(getattr(module, "config", None), "_attn_implementation", None)
    return name if name in OWN_KERNELS and name in AttentionInterface._global_mapping and kernel_available(name) \
        else ""


@contextmanager
def tapped_attention(model: nn.Module, sites: Mapping[nn.Module, AttentionSite], cached: bool = False,
                     kernel: str = EAGER) -> Iterator[None]:
    """Run `model` with the tapped attention function inside the block; everything restored in `finally`.

    `cached`: the model is called with a KV cache, its keys and values are shown as the cache.
    `kernel`: tfdebug's eager (every sub-stage tapped) or transformers' own kernel of that name (the
    query, key, value and context tapped around it).
    """
    with kernel_registered(kernel) as name:
        with _LOCK:
            _SITES.update({id(module): replace(site, cached=cached, own=own_kernel(module) if cached else "")
                           for module, site in sites.items()})
        try:
            with implementation(model, name):
                yield
        finally:
            with _LOCK:
                for module in sites:
                    _SITES.pop(id(module), None)
