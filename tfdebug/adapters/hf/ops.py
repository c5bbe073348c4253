"""Attention computed in a model's own code, read op by op from one probing run (BLOOM, Falcon, DeBERTa-v2 …).

Some Hugging Face models never call transformers' attention interface: their attention
module multiplies, adds and normalises in its own forward. While such a module runs, and
only then, a `torch.overrides.TorchFunctionMode` (`OpRecorder`) sees every torch operation
it makes. `read_attention` walks back from the one softmax to the matmul that made the
scores, naming each operation on the way: a multiply or divide by a number is the scale;
an added tensor that comes from the module's mask argument (or a `masked_fill`) is the
mask, any other added tensor a position bias (ALiBi when it comes from an argument called
`alibi`); forward from the softmax, the next matmul is the weighted sum of the values.
An operation is named by its function and how many calls of that function came before it
in the same forward ("the 2nd bmm"): the same in every run of the module, so the capture
(`tfdebug.adapters.hf.own`) finds it again. What cannot be read this way is refused, with
the operation named.
"""

from __future__ import annotations

import inspect
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import torch
from torch import Tensor, nn
from torch.overrides import TorchFunctionMode

from tfdebug.adapters.hf.match import refuse

Key = tuple[str, int]  # (function name, how many calls of it came before in the module's forward)

MATMUL = frozenset({"matmul", "bmm", "__matmul__", "baddbmm"})
MULTIPLY = frozenset({"mul", "mul_", "__mul__", "__rmul__", "__imul__"})
DIVIDE = frozenset({"div", "div_", "__truediv__", "__itruediv__", "true_divide"})
ADD = frozenset({"add", "add_", "__add__", "__radd__", "__iadd__"})
# Operations that move or retype values without changing them (dropout is the identity in eval mode).
PASS = frozenset({"view", "reshape", "transpose", "permute", "contiguous", "to", "float", "flatten", "type_as",
                  "clone", "dropout", "squeeze", "unsqueeze"})
# Calls that read a tensor's metadata: not operations.
_IGNORED = frozenset({"__get__", "__set__", "size", "dim", "numel", "__len__", "is_floating_point", "__format__",
                      "__repr__", "__bool__", "__index__", "stride", "data_ptr", "element_size", "get_device"})
# Arguments of an attention module's forward, by name: where an added tensor comes from says what it is.
_ARGUMENT_MARKS = {"attention_mask": "mask", "mask": "mask", "alibi": "alibi"}


def op_name(func) -> str | None:
    """The name an operation is known by ('bmm', 'softmax', '__add__'), None for a metadata read."""
    name = getattr(func, "__name__", None)
    return None if name is None or name in _IGNORED else name


def tensors_of(args: tuple, kwargs: dict) -> list[Tensor]:
    """The tensors among an operation's arguments, in order (one level into lists and tuples)."""
    found = []
    for value in (*args, *kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        found.extend(v for v in items if isinstance(v, Tensor))
    return found


def number(value: Any) -> float | None:
    """A plain number, or the value of a one-element tensor; None for anything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, Tensor) and value.numel() == 1:
        return float(value.detach().float().reshape(()).cpu())
    return None


@dataclass
class Op:
    """One operation of the module's forward: its name and occurrence, arguments and result."""

    index: int
    key: Key
    args: tuple
    kwargs: dict
    out: Any

    @property
    def name(self) -> str:
        return self.key[0]

    def operands(self) -> list[Tensor]:
        return tensors_of(self.args, self.kwargs)


class OpRecorder(TorchFunctionMode):
    """Records every operation made while it is active, and which of the module's arguments each result
    comes from (`marks`: id → 'mask', 'alibi' or 'bias'). `on_softmax` is called at each softmax, in order."""

    def __init__(self, marks: dict[int, str], on_softmax=None):
        super().__init__()
        self.ops: list[Op] = []
        self.marks = marks
        self.counts: Counter = Counter()
        self.on_softmax = on_softmax

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = op_name(func)
        if name is None:
            return out
        key = (name, self.counts[name])
        self.counts[name] += 1
        inputs = tensors_of(args, kwargs)
        mark = next((self.marks[id(t)] for t in inputs if id(t) in self.marks), None)
        if mark is not None and isinstance(out, Tensor):
            self.marks[id(out)] = mark
        self.ops.append(Op(len(self.ops), key, args, kwargs, out))
        if name == "softmax" and self.on_softmax is not None:
            self.on_softmax()
        return out


def argument_marks(module: nn.Module, args: tuple, kwargs: dict) -> tuple[dict[int, str], list[Tensor]]:
    """(id → mark, the tensors marked) for the tensors a module's forward was given: its mask, an
    ALiBi argument, and every other tensor besides the first (the hidden states) a possible bias source."""
    try:
        bound = inspect.signature(module.forward).bind_partial(*args, **kwargs).arguments
    except TypeError:
        bound = dict(kwargs)
    marks, kept = {}, []
    for i, (name, value) in enumerate(bound.items()):
        for t in tensors_of((value,), {}):
            if i == 0 or name in ("hidden_states", "query_states", "residual"):
                continue
            marks[id(t)] = _ARGUMENT_MARKS.get(name, "bias")
            kept.append(t)
    return marks, kept


@dataclass(frozen=True)
class Step:
    """One operation between the scores and the softmax: 'scale' (by `factor`), 'bias' (`stage` names
    it: 'alibi' or 'position_bias') or 'mask'."""

    key: Key
    role: str
    factor: float | None = None
    stage: str = ""


@dataclass(frozen=True)
class OwnAttention:
    """How one attention module computes, as found in the probe: the operations each stage is the result of.

    `form`: 'matmul' (Q·Kᵀ), 'prescaled' (Q·(Kᵀ × `prescale`), the scale applied to an operand first:
    DeBERTa-v2) or 'baddbmm' (β·bias + α·Q·Kᵀ in one fused operation: BLOOM's ALiBi). `prescale_op`: the
    operation that scaled the operand (`prescale_arg` 0: the queries, 1: the keys).
    """

    scores: Key
    form: str
    softmax: Key
    context: Key
    steps: tuple[Step, ...] = ()
    prescale: float = 1.0
    prescale_op: Key | None = None
    prescale_arg: int = 1
    alpha: float = 1.0
    beta: float = 1.0
    bias_stage: str = "position_bias"
    #: the softmax's result is cast at once (BLOOM: softmax in float32, then `.to(dtype)`): the probabilities
    #: are the cast's result, what the model goes on with and returns
    cast: bool = False

    def stage_order(self) -> list[str]:
        """The stages between the product and the softmax, in the order the model computes them."""
        order = ["scores"]
        if self.form in ("prescaled", "baddbmm"):
            order.append("scaled")
        if self.form == "baddbmm":
            order.append(self.bias_stage)
        return order + [{"scale": "scaled", "mask": "masked"}.get(s.role, s.stage) for s in self.steps]

    @property
    def scaling(self) -> float:
        """The product of every scale applied to the scores (Q·Kᵀ × this, in exact arithmetic)."""
        value = self.prescale * (self.alpha if self.form == "baddbmm" else 1.0)
        for step in self.steps:
            value *= step.factor if step.role == "scale" else 1.0
        return value


@dataclass
class Read:
    """What the planner needs from one own-code attention call: the plan and its tensors in the
    interface's layout (query (B, H, Tq, Dh), key and value (B, H_kv, Tk, Dh), an additive mask or None)."""

    own: OwnAttention
    query: Tensor
    key: Tensor
    value: Tensor
    mask: Tensor | None

    def as_call(self) -> tuple:
        """The tuple an interface call records: (query, key, value, mask, scaling, keywords)."""
        return (self.query, self.key, self.value, self.mask, self.own.scaling, {})


def heads_first(t: Tensor, batch: int) -> Tensor:
    """(B·H, T, D) or (B, H, T, D) → (B, H, T, D): the last two axes kept, the rest split as batch × heads."""
    return t.reshape(batch, -1, t.shape[-2], t.shape[-1])


def _producer(ops: list[Op], tensor: Any, before: int) -> Op | None:
    """The last operation before `before` whose result is `tensor` itself."""
    return next((o for o in reversed(ops[:before]) if o.out is tensor), None)


def _other(op: Op) -> Tensor | None:
    operands = op.operands()
    return operands[1] if len(operands) > 1 else None


def _scale_factor(op: Op) -> float | None:
    """The number a multiply or divide applies (1/x for a divide), None when it is not a number."""
    others = [a for a in (*op.args[1:], *op.kwargs.values())]
    value = number(others[0]) if others else None
    if value is None or value == 0.0:
        return None
    return 1.0 / value if op.name in DIVIDE else value


def read_attention(ops: list[Op], marks: dict[int, str], batch: int, path: str) -> Read:
    """The stages of one own-code attention call (see the module docstring); UnsupportedModelError naming
    the operation that cannot be read."""
    softmaxes = [o for o in ops if o.name == "softmax"]
    if len(softmaxes) != 1:
        raise refuse("{path} computes its attention in its own code with {n} softmaxes in one call, which tfdebug "
                      "cannot follow operation by operation.", "own_softmaxes", path=path, n=len(softmaxes))
    softmax = softmaxes[0]
    chain, current, before = [], softmax.operands()[0], softmax.index
    while True:
        op = _producer(ops, current, before)
        if op is None:
            raise refuse("{path} computes its attention in its own code, and tfdebug cannot find the product of "
                         "queries and keys its softmax reads.", "own_no_scores", path=path)
        if op.name in MATMUL:
            break
        chain.append(op)
        current, before = op.operands()[0], op.index
    scores = op
    steps = []
    for op in reversed(chain):
        if op.name in PASS:
            continue
        if op.name in MULTIPLY | DIVIDE and _scale_factor(op) is not None:
            steps.append(Step(op.key, "scale", _scale_factor(op)))
        elif op.name == "masked_fill" or op.name in ADD and marks.get(id(_other(op))) == "mask":
            steps.append(Step(op.key, "mask"))
        elif op.name in ADD and _other(op) is not None:
            steps.append(Step(op.key, "bias", stage="alibi" if marks.get(id(_other(op))) == "alibi"
                              else "position_bias"))
        else:
            raise refuse("{path} computes its attention in its own code, with an operation tfdebug cannot name "
                         "between its scores and its softmax ({op}).", "own_unknown_op", path=path, op=op.name)
    roles = [s.role if s.role != "bias" else s.stage for s in steps]
    if len(set(roles)) != len(roles):
        raise refuse("{path} computes its attention in its own code and applies one kind of step twice between "
                     "its scores and its softmax, which tfdebug cannot name.", "own_repeated_step", path=path)
    context, follows = None, {id(softmax.out)}
    after = next((o for o in ops[softmax.index + 1:] if o.operands() and o.operands()[0] is softmax.out), None)
    cast = after is not None and after.name == "to"
    for op in ops[softmax.index + 1:]:
        operands = op.operands()
        if not operands or id(operands[0]) not in follows:
            continue
        if op.name in MATMUL:
            context = op
            break
        if op.name in PASS:
            follows.add(id(op.out))
    if context is None:
        raise refuse("{path} computes its attention in its own code, and tfdebug cannot find where its "
                     "probabilities weight the values.", "own_no_context", path=path)
    return _read(ops, marks, batch, scores, steps, softmax, context, cast)


def _read(ops, marks, batch, scores: Op, steps: list[Step], softmax: Op, context: Op, cast: bool) -> Read:
    form, alpha, beta, bias_stage = "matmul", 1.0, 1.0, "position_bias"
    if scores.name == "baddbmm":
        bias, a, b = scores.args[0], scores.kwargs.get("batch1", scores.args[1:2] and scores.args[1]), \
            scores.kwargs.get("batch2", scores.args[2:3] and scores.args[2])
        alpha, beta = float(scores.kwargs.get("alpha", 1.0)), float(scores.kwargs.get("beta", 1.0))
        form, bias_stage = "baddbmm", "alibi" if marks.get(id(bias)) == "alibi" else "position_bias"
    else:
        a, b = scores.operands()[:2]
    prescale, prescale_op, prescale_arg = 1.0, None, 1
    for i, operand in ((1, b), (0, a)):  # DeBERTa-v2 divides Kᵀ by its scale before the product
        made = _producer(ops, operand, scores.index)
        if form == "matmul" and made is not None and made.name in MULTIPLY | DIVIDE and _scale_factor(made):
            form, prescale, prescale_op, prescale_arg = "prescaled", _scale_factor(made), made.key, i
            if i == 1:
                b = made.operands()[0]
            else:
                a = made.operands()[0]
            break
    own = OwnAttention(scores.key, form, softmax.key, context.key, tuple(steps), prescale, prescale_op,
                       prescale_arg, alpha, beta, bias_stage, cast)
    query = heads_first(a, batch)
    key = heads_first(b.transpose(-1, -2), batch)
    value = heads_first(context.operands()[1], batch)
    mask = None
    for step in steps:
        op = next(o for o in ops if o.key == step.key)
        if step.role == "mask":
            filled = op.operands()[1] if op.name == "masked_fill" else None
            if filled is not None:
                mask = torch.zeros(filled.shape, dtype=query.dtype).masked_fill(filled.bool().cpu(),
                                                                                 torch.finfo(query.dtype).min)
            else:
                mask = _other(op)
    return Read(own, query, key, value, mask)


def _candidates(model: nn.Module) -> list[nn.Module]:
    """The innermost modules whose class says Attention: where a model's own attention code runs."""
    named = [m for m in model.modules() if "Attention" in type(m).__name__]
    return [m for m in named if not any("Attention" in type(c).__name__ for c in m.modules() if c is not m)]


@contextmanager
def recording(model: nn.Module, calls: list, new_call) -> Iterator[None]:
    """Inside the block, each attention module that does not call transformers' attention interface is
    recorded op by op; at its softmax `new_call(module)` appends the call that stands for its attention to
    `calls`, and when it returns that call's `attention` and `own` are filled from `read_attention`.
    Hooks removed and recorders left in `finally`."""
    paths = {id(m): p for p, m in model.named_modules()}
    frames: list = []

    def enter(module, args, kwargs):
        marks, kept = argument_marks(module, args, kwargs)
        first = args[0] if args else kwargs.get("hidden_states")
        start, holders = len(calls), []

        def on_softmax():
            if not any(c.attention is not None for c in calls[start:]):  # not the interface's own softmax
                holders.append(new_call(module))

        recorder = OpRecorder(marks, on_softmax)
        recorder.__enter__()
        frames.append((recorder, holders, kept, first.shape[0] if isinstance(first, Tensor) else 1))

    def leave(module, args, output):
        recorder, holders, _, batch = frames.pop()
        recorder.__exit__(None, None, None)
        if holders and output is not None:  # not after a forward that raised
            read = read_attention(recorder.ops, recorder.marks, batch, paths.get(id(module), "?"))
            holders[0].attention, holders[0].own = read.as_call(), read.own

    handles = []
    try:
        for module in _candidates(model):
            handles.append(module.register_forward_pre_hook(enter, with_kwargs=True))
            handles.append(module.register_forward_hook(leave, always_call=True))
        yield
    finally:
        for handle in handles:
            handle.remove()
        while frames:
            frames.pop()[0].__exit__(None, None, None)
