"""One short run of a Hugging Face model that shows how its modules pass tensors (for the generic planner).

`probe(model)` runs the model once on a few token ids with tfdebug's attention function
registered, and records, in call order, every module call (its path, first input and
first output) and every call of the attention function (the module that made it, its
query, key and value, and the keywords it passed), or, for a module computing attention in
its own code, what `hf_ops` reads from its operations in the same form. The planner reads structure off this
record: which modules compute attention, what feeds what, where a residual sum happens.
Nothing of the record is kept after planning; every hook is removed in `finally`.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch
from torch import Tensor, nn

from tfdebug.adapters.hf import attention as hf_attention
from tfdebug.adapters.hf.ops import recording
from tfdebug.core.errors import UnsupportedModelError

# Half-precision models up to this many bytes in float32 are probed in float32: their sums are then
# exact enough to tell a tiny sublayer output from rounding (see `float32_for_the_probe`).
UPCAST_LIMIT = 4 << 30
# Long enough that a sliding window of 4 and rotary positions show, short enough to cost nothing.
PROBE_TOKENS = 6
PROBE_TARGET = 3


@dataclass
class Call:
    """One module call (or, with `attention` set, one call of the attention function) in forward order."""

    index: int
    path: str
    module: nn.Module
    input: Tensor | None = None
    output: Any = None
    end: int = -1  # the index of the last call inside this one
    attention: tuple | None = None  # (query, key, value, mask, scaling, kwargs) of the attention function
    own: Any = None  # for attention computed in the model's own code: how (`hf_ops.OwnAttention`)

    @property
    def out(self) -> Tensor | None:
        """The first tensor of the output (a tuple's first item, a ModelOutput's first field)."""
        value = self.output
        while isinstance(value, (tuple, list)) and value:
            value = value[0]
        return value if isinstance(value, Tensor) else None


@dataclass
class Probe:
    """Every call of one probing run, in the order they started."""

    calls: list[Call] = field(default_factory=list)
    output: Any = None
    kwargs: dict = field(default_factory=dict)

    def inside(self, call: Call) -> list[Call]:
        """The calls made while `call` ran, in order."""
        return self.calls[call.index + 1: call.end + 1]

    def first(self, path: str) -> Call | None:
        return next((c for c in self.calls if c.path == path and c.attention is None), None)

    def attention_calls(self) -> list[Call]:
        return [c for c in self.calls if c.attention is not None]

    def produced(self, tensor: Tensor) -> Call | None:
        """The call whose output is `tensor` itself (None: an operation between modules made it)."""
        return next((c for c in self.calls if c.out is tensor), None)


def probe_inputs(model: nn.Module) -> dict:
    """A few token ids every tiny test vocabulary holds (1 … 6), and a decoder input for encoder–decoders."""
    from tfdebug.adapters.hf.load import execution_device

    device = execution_device(model.get_input_embeddings())  # not the weights' device under a device_map
    ids = torch.arange(1, PROBE_TOKENS + 1, device=device)[None]  # (1, T)
    kwargs: dict = {"input_ids": ids}
    if getattr(model.config, "is_encoder_decoder", False):
        kwargs["decoder_input_ids"] = torch.arange(1, PROBE_TARGET + 1, device=device)[None]
    if model.can_generate() if hasattr(model, "can_generate") else False:
        kwargs["use_cache"] = False
    return kwargs


@contextmanager
def float32_for_the_probe(model: nn.Module) -> Iterator[None]:
    """A half-precision model's weights and buffers in float32 inside the block, each back to its own dtype
    after (bf16 → float32 → bf16 is exact). Left as they are when the model is float32, too large
    (`UPCAST_LIMIT`), or partly offloaded by a device_map."""
    tensors = {id(t): t for t in list(model.parameters()) + list(model.buffers())}.values()
    half = [t for t in tensors if t.dtype in (torch.float16, torch.bfloat16)]
    if not half or any(t.is_meta for t in tensors) or sum(t.numel() for t in half) * 4 > UPCAST_LIMIT:
        yield
        return
    dtypes = [t.dtype for t in half]
    try:
        for t in half:
            t.data = t.data.float()
        yield
    finally:
        for t, dtype in zip(half, dtypes):
            t.data = t.data.to(dtype)


def probe(model: nn.Module, inputs: dict | None = None) -> Probe:
    """Run `model` once on `inputs` (default `probe_inputs`: a vision model is given its pixels) and record its
    calls (see the module docstring)."""
    record = Probe(kwargs=inputs if inputs is not None else probe_inputs(model))
    paths = {id(m): p for p, m in model.named_modules()}
    stack: list[Call] = []

    def before(module, args, kwargs):
        first = args[0] if args else kwargs.get("hidden_states", next(iter(kwargs.values()), None))
        call = Call(len(record.calls), paths.get(id(module), "?"), module,
                    first if isinstance(first, Tensor) else None)
        record.calls.append(call)
        stack.append(call)

    def after(module, args, output):
        call = stack.pop()
        call.output, call.end = output, len(record.calls) - 1

    def own_call(module):  # attention in a module's own code, seen at its softmax (hf_ops.recording)
        call = Call(len(record.calls), paths.get(id(module), "?"), module)
        record.calls.append(call)
        return call

    class Attention(list):
        def append(self, item):
            module = item[0]
            record.calls.append(Call(len(record.calls), paths.get(id(module), "?"), module, attention=item[1:]))

    with ExitStack() as stack_ctx:
        handles = []
        stack_ctx.callback(lambda: [h.remove() for h in handles])
        for module in model.modules():
            handles.append(module.register_forward_pre_hook(before, with_kwargs=True))
            handles.append(module.register_forward_hook(after))
        name = stack_ctx.enter_context(hf_attention.kernel_registered())
        hf_attention.PROBE = Attention()

        def restore():
            hf_attention.PROBE = None

        stack_ctx.callback(restore)
        stack_ctx.enter_context(hf_attention.implementation(model, name))
        stack_ctx.enter_context(float32_for_the_probe(model))
        stack_ctx.enter_context(recording(model, record.calls, own_call))
        try:
            with torch.no_grad():
                record.output = model(**record.kwargs)
        except UnsupportedModelError:
            raise
        except Exception as exc:  # the model's own code failed on a plain input: say so, with its words
            raise UnsupportedModelError(
                "tfdebug could not run {model} once to find its stages: {reason}",
                id="hf.probe_failed", model=type(model).__name__, reason=f"{type(exc).__name__}: {exc}") from exc
    if not record.attention_calls():
        raise UnsupportedModelError(
            "No module of {model} calls transformers' attention interface or computes a softmax of queries and "
            "keys in an attention module of its own, so tfdebug finds no attention to show.",
            id="hf.no_attention_interface", model=type(model).__name__)
    return record
