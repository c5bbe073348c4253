"""Recipes: attention planes (tokens × tokens per head) computed where and when they are looked at.

A pass keeps what a model computes in O(tokens × width): q and k after their splits and
rotations. The planes made from them — scores, scaled, biased, soft-capped, masked,
probabilities — are O(heads × tokens²) each and would be kept four or five times per
layer. A `Plane` is such a stage as a recipe: its inputs (q and k, or the tensor of an
edited stage), the chain of operations the model's attention applies (the same operations,
dtype and order), and the constants (scale, soft cap, the additive mask the model built,
a position bias). Indexing a plane (`plane[b, h, r0:r1, c0:c1]`) computes only the heads
indexed, so a heatmap of one head of an 8k-token pass costs one head's plane; any other
torch operation on it (statistics, comparisons, exports) computes the whole plane, head
block by head block into one tensor, and gives it to that operation.

Per head the arithmetic is the model's own: the same matmul shape per (batch, head) as the
batched matmul, the same elementwise operations, the softmax over the same rows. Tests
hold a recomputed plane to the materialised one bit for bit.
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TypeVar, cast

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch
    from torch import Tensor

# Heads computed together when a whole plane is needed: a block stays under this many bytes.
BLOCK_BYTES = 256 * 1024 * 1024
# A read of some query rows computes a band of whole rows (every key: a softmax needs its row) of at least this
# many rows, on multiples of it where the plane's edge allows: MKL serves a product of 1–3 rows with other kernels
# (other sums, other bits), from 4 rows on a band's cells equal the whole head's bit for bit (tests hold them).
ROW_ALIGN = 16
#: the stage kinds a recipe computes (every other stage is a kept tensor)
RECIPE_KINDS = frozenset({"scores", "scale", "position_bias", "softcap", "mask", "softmax"})
ALL = slice(None)


def _as_slice(index, size: int) -> tuple[slice, bool]:
    """An int or slice of one axis as a slice, and whether the axis is then squeezed (an int)."""
    if isinstance(index, slice):
        return index, False
    i = int(index)
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for an axis of size {size}")
    i %= size
    return slice(i, i + 1), True


def _part(t: Tensor, batch: slice, heads: slice) -> Tensor:
    """`t` (B or 1, H or 1, …) at the batch and head block, keeping a broadcast axis of size 1."""
    return t[batch if t.shape[0] != 1 else slice(None), heads if t.shape[1] != 1 else slice(None)]


def block_shape(shape: Sequence[int], dtype: torch.dtype, device: torch.device,
                block_bytes: int | None = None) -> tuple[int, int]:
    """(heads, query rows) of the blocks a (batch, head, query, key) plane is computed in when it is needed whole:
    as many whole heads as stay under `block_bytes` (`BLOCK_BYTES`), counting 4 bytes a cell where a softmax runs
    in float32; on the CPU a head larger than that is cut into bands of whole rows, a multiple of `ROW_ALIGN`
    long (a band's cells equal the whole head's bit for bit; elsewhere a BLAS may block a product differently
    with its shape, and a block is at least a head)."""
    block_bytes = BLOCK_BYTES if block_bytes is None else block_bytes
    batch, heads, rows, cols = shape
    per_row = max(1, batch * cols * max(4, dtype.itemsize))
    if per_row * rows <= block_bytes or getattr(device, "type", device) != "cpu":
        return max(1, min(heads, block_bytes // (per_row * max(1, rows)))), rows
    return 1, min(rows, aligned_band(block_bytes // per_row))


def aligned_band(rows: int) -> int:
    """A band of at most `rows` query rows (at least `ROW_ALIGN`), a multiple of `ROW_ALIGN` long."""
    return max(ROW_ALIGN, rows // ROW_ALIGN * ROW_ALIGN)


def block_nbytes(shape: Sequence[int], dtype: torch.dtype, device: torch.device,
                 block_bytes: int | None = None) -> int:
    """Bytes of the largest block `block_shape` gives (in float32 where the plane's dtype is narrower)."""
    heads, rows = block_shape(shape, dtype, device, block_bytes)
    return shape[0] * heads * rows * shape[3] * max(4, dtype.itemsize)


def row_bands(rows: int, band: int) -> list[slice]:
    """`rows` query rows in bands of `band` (the last one takes a remainder shorter than `ROW_ALIGN`: MKL serves a
    product of a few rows with other kernels)."""
    starts = list(range(0, rows, max(1, band)))
    if len(starts) > 1 and rows - starts[-1] < ROW_ALIGN:
        starts.pop()
    return [slice(start, stop) for start, stop in zip(starts, [*starts[1:], rows])]


class Plane:
    """A (batch, head, query, key) stage computed on demand (see the module docstring).

    Looks enough like a tensor for tfdebug's readers: `shape`, `dtype`, `device`, `dim()`,
    `detach()`, indexing; torch functions and other tensor methods compute the whole plane.
    """

    #: JSON-able description of this step (ops and constants); inputs named by `names`
    op: str = "plane"

    def __init__(self, shape: Sequence[int], dtype: torch.dtype, device: torch.device):
        import torch
        self.shape = torch.Size(shape)
        self.dtype = dtype
        self.device = torch.device(device)

    # -- what subclasses say -------------------------------------------------------------
    def block(self, batch: slice, heads: slice, rows: slice | Tensor = ALL, keep: dict | None = None) -> Tensor:
        """The plane at a batch range, a head range and a range of query rows (every key): (b, h, r, Tk).
        `keep`, when given, maps the ids of steps of this chain to None; each is set to that step's block here."""
        raise NotImplementedError

    def inputs(self) -> dict[str, "Tensor | Plane"]:
        """The tensors (and the plane) this step reads, by role."""
        raise NotImplementedError

    def constants(self) -> dict:
        """The step's constants (JSON-able)."""
        return {}

    # -- tensor-like surface ---------------------------------------------------------------
    @property
    def ndim(self) -> int:
        """The number of axes, as a tensor's `ndim`."""
        return len(self.shape)

    def dim(self) -> int:
        """The number of axes, as a tensor's `dim()`."""
        return len(self.shape)

    def size(self, dim: int | None = None):
        """The shape, or the size of axis `dim`, as a tensor's `size()`."""
        return self.shape if dim is None else self.shape[dim]

    def numel(self) -> int:
        """The number of cells, as a tensor's `numel()`."""
        return math.prod(self.shape)

    def element_size(self) -> int:
        """Bytes per cell of the plane's dtype."""
        return self.dtype.itemsize

    def is_floating_point(self) -> bool:
        """Whether the plane's dtype is a floating-point one."""
        return self.dtype.is_floating_point

    @property
    def is_cuda(self) -> bool:
        """Whether the plane lives on a CUDA device."""
        return self.device.type == "cuda"

    def detach(self) -> "Plane":
        """The plane itself (a recipe has no autograd graph to detach from)."""
        return self

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Plane({self.op}, shape={tuple(self.shape)}, dtype={self.dtype}, device={self.device})"

    def __getitem__(self, index) -> Tensor:
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) >= 2 and all(isinstance(i, (int, slice)) or _is_int(i) for i in index[:2]) \
                and not any(i is Ellipsis or i is None for i in index):
            return self.tile(index)[0]
        return self.materialize()[index]

    def tile(self, index: tuple, also: "Plane | None" = None) -> tuple[Tensor, Tensor | None]:
        """`self[index]` for an index starting with ints or slices over (batch, head[, query]), computing only the
        heads indexed and, on the CPU, the band of query rows (every key) that holds the rows indexed; and
        `also[index]` when `also` is a step of this chain, from the same computation (None otherwise).

        Every batch row is computed (the model's matmul has them all: bit for bit the same). Elsewhere than
        the CPU a BLAS may block a product differently with its shape: there the head's whole plane is
        computed and sliced."""
        heads, squeeze_h = _as_slice(index[1], self.shape[1])
        rows, rest = ALL, (index[0], 0 if squeeze_h else slice(None)) + tuple(index[2:])
        if len(index) >= 3 and self.device.type == "cpu" and (isinstance(index[2], (int, slice)) or _is_int(index[2])):
            wanted, squeeze_r = _as_slice(index[2], self.shape[2])
            start, stop, step_ = wanted.indices(self.shape[2])
            if step_ == 1 and stop > start:
                end = min(self.shape[2], -(-stop // ROW_ALIGN) * ROW_ALIGN)
                first = min(start // ROW_ALIGN * ROW_ALIGN, max(0, end - ROW_ALIGN))  # never fewer than ROW_ALIGN
                rows = slice(first, end)
                within = slice(start - first, stop - first)
                rest = rest[:2] + (within.start if squeeze_r else within,) + rest[3:]
            elif step_ > 1 and stop > start:
                return self._strided(heads, range(start, stop, step_), rest[:2] + (ALL,) + rest[3:], also)
        keep = self._keeping(also)
        part = self.block(ALL, heads, rows, keep)
        return part[rest], (keep[id(also)][rest] if keep else None)

    def _keeping(self, also: "Plane | None") -> dict | None:
        """The `keep` that `block` fills with step `also`'s block: None when `also` is not a step of this chain."""
        return {id(also): None} if also is not None and any(s is also for s in self.steps()) else None

    def _strided(self, heads: slice, wanted: range, rest: tuple, also: "Plane | None") -> tuple[Tensor, Tensor | None]:
        """`tile` of every `wanted.step`-th query row (a thumbnail's grid) on the CPU: those rows gathered into one
        product (from 4 rows on, each row's cells are the whole head's bit for bit), or, fewer than `ROW_ALIGN` of
        them, the aligned bands of `ROW_ALIGN` rows that hold them. A 32k-token head's 48-pixel grid of every 85th
        row computes 385 rows, not 32,768."""
        import torch
        picked = torch.arange(wanted.start, wanted.stop, wanted.step, device=self.device)
        if len(wanted) >= ROW_ALIGN:
            rows, within = picked, slice(None)
        else:
            starts = sorted({min(r // ROW_ALIGN * ROW_ALIGN, max(0, self.shape[2] - ROW_ALIGN)) for r in wanted})
            rows = torch.cat([torch.arange(r, min(self.shape[2], r + ROW_ALIGN), device=self.device) for r in starts])
            within = torch.searchsorted(rows, picked)
        keep = self._keeping(also)
        part = self.block(ALL, heads, rows, keep)[:, :, within]
        return part[rest], (keep[id(also)][:, :, within][rest] if keep else None)

    def blocks(self, block_bytes: int | None = None) -> Iterator[tuple[slice, slice, Tensor]]:
        """The whole plane one block at a time, (head slice, query-row slice, block (B, h, r, Tk)), in row-major
        order; the blocks' shape is `block_shape`'s (every batch row in each: the model's batched matmul has them
        all, and a block then equals it bit for bit)."""
        batch, heads, rows, cols = self.shape
        step, band = block_shape(self.shape, self.dtype, self.device, block_bytes)
        for h in range(0, heads, step):
            hs = slice(h, min(heads, h + step))
            for rs in row_bands(rows, band):
                yield hs, rs, self.block(ALL, hs, rs)

    def materialize(self) -> Tensor:
        """The whole plane as one tensor (computed head block by head block)."""
        import torch
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
        for hs, rs, part in self.blocks():
            out[:, hs, rs] = part
        return out

    def steps(self) -> list["Plane"]:
        """This recipe's chain, first step first."""
        chain, step = [], self
        while isinstance(step, Plane):
            chain.append(step)
            step = step.inputs().get("plane")
        return chain[::-1]

    # Any other use computes the plane and hands it on.
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*_materialized(args), **{k: _materialized(v) for k, v in (kwargs or {}).items()})

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("shape", "dtype", "device"):
            raise AttributeError(name)
        return getattr(self.materialize(), name)

    def _binary(self, other, op: Callable):
        return op(self.materialize(), other.materialize() if isinstance(other, Plane) else other)

    def __add__(self, o): return self._binary(o, operator.add)
    def __sub__(self, o): return self._binary(o, operator.sub)
    def __mul__(self, o): return self._binary(o, operator.mul)
    def __truediv__(self, o): return self._binary(o, operator.truediv)
    def __eq__(self, o): return self._binary(o, operator.eq)  # noqa: E704
    def __ne__(self, o): return self._binary(o, operator.ne)  # noqa: E704
    def __lt__(self, o): return self._binary(o, operator.lt)  # noqa: E704
    def __le__(self, o): return self._binary(o, operator.le)  # noqa: E704
    def __gt__(self, o): return self._binary(o, operator.gt)  # noqa: E704
    def __ge__(self, o): return self._binary(o, operator.ge)  # noqa: E704
    def __neg__(self): return -self.materialize()  # noqa: E704
    def __abs__(self): return self.materialize().abs()  # noqa: E704
    __hash__ = object.__hash__


def _is_int(x) -> bool:
    from torch import Tensor
    return isinstance(x, Tensor) and x.dim() == 0 and not x.is_floating_point()


def _materialized(value):
    if isinstance(value, Plane):
        return value.materialize()
    if isinstance(value, (list, tuple)):
        return type(value)(_materialized(v) for v in value)
    if isinstance(value, dict):
        return {k: _materialized(v) for k, v in value.items()}
    return value


_Constant = TypeVar("_Constant")


def needed(constant: _Constant | None, op: str) -> _Constant:
    """A recipe step's constant (a scale's value, a mask's tensor), which that step cannot do without."""
    if constant is None:
        raise ValueError(f"recipe step {op!r} has no constant")
    return constant


def as_tensor(plane: Plane) -> Tensor:
    """`plane` where a stage's tensor goes (`Capture.tensor`, a reader's result): it stands in for the tensor,
    as tfdebug's readers use it (its shape, dtype, blocks), and a torch function given it computes it."""
    return cast("Tensor", plane)


def is_plane(value) -> bool:
    """Whether a stage's tensor is a recipe plane."""
    return isinstance(value, Plane)


def materialized(value):
    """A stage's tensor as a real tensor (a recipe plane computed whole)."""
    return value.materialize() if isinstance(value, Plane) else value


class Scores(Plane):
    """Q·Kᵀ per head from the kept q (B, H, Tq, Dh) and k (B, H_kv, Tk, Dh): each K head
    serves H / H_kv query heads, as the model's repeat of k makes it."""

    op = "scores"

    def __init__(self, query: Tensor, key: Tensor):
        batch, heads, rows, _ = query.shape
        super().__init__((batch, heads, rows, key.shape[-2]), query.dtype, query.device)
        self.query, self.key = query, key
        self.groups = heads // key.shape[1]

    def inputs(self):
        """The kept query and key, by role."""
        return {"query": self.query, "key": self.key}

    def block(self, batch: slice, heads: slice, rows: slice | Tensor = ALL, keep: dict | None = None) -> Tensor:
        """Q·Kᵀ at a batch range, a head range and a range of query rows: (b, h, r, Tk)."""
        q = self.query[batch, heads, rows]  # (b, h, r, Dh)
        import torch
        start, stop, _ = heads.indices(self.shape[1])
        g = self.groups
        if g > 1:  # the model repeats each K head g times: heads start … stop-1 read K heads h // g
            from tfdebug.core.repeats import grouped_product
            return _kept(self, grouped_product(q, self.key[batch], start, g, transpose=True), keep)
        k = self.key[batch, start:stop]
        return _kept(self, torch.matmul(q, k.transpose(2, 3)), keep)  # (b, h, r, Tk)


class FromTensor(Plane):
    """A plane that is a kept tensor (a stage the user edited: what follows reads it)."""

    op = "tensor"

    def __init__(self, tensor: Tensor):
        super().__init__(tensor.shape, tensor.dtype, tensor.device)
        self.tensor = tensor

    def inputs(self):
        """The kept tensor, by role."""
        return {"tensor": self.tensor}

    def block(self, batch: slice, heads: slice, rows: slice | Tensor = ALL, keep: dict | None = None) -> Tensor:
        """The kept tensor at a batch range, a head range and a range of query rows."""
        return _kept(self, self.tensor[batch, heads, rows], keep)


class Derived(Plane):
    """One step after another plane: `fn(previous block, batch, heads)` with the step's constants."""

    def __init__(self, plane: Plane, op: str, *, dtype: torch.dtype | None = None,
                 tensor: Tensor | None = None, value: float | None = None):
        super().__init__(plane.shape, dtype or plane.dtype, plane.device)
        self.plane, self.op, self.tensor, self.value = plane, op, tensor, value

    def inputs(self):
        """The previous plane, and the step's tensor when it has one, by role."""
        return {"plane": self.plane, **({"tensor": self.tensor} if self.tensor is not None else {})}

    def constants(self):
        """The step's value when it has one (a scale's), else nothing."""
        return {} if self.value is None else {"value": self.value}

    def block(self, batch: slice, heads: slice, rows: slice | Tensor = ALL, keep: dict | None = None) -> Tensor:
        """The previous plane's block with this step applied: (b, h, r, Tk)."""
        x = self.plane.block(batch, heads, rows, keep)
        part = None if self.tensor is None else self._tensor_part(self.tensor, batch, heads, rows)
        return _kept(self, apply_step(self.op, x, part, self.value, self.dtype), keep)

    def _tensor_part(self, tensor: Tensor, batch: slice, heads: slice, rows: slice | Tensor) -> Tensor:
        t = _part(tensor, batch, heads)
        t = t[:, :, rows] if t.shape[2] != 1 else t
        return t[..., : self.shape[-1]] if t.shape[-1] != self.shape[-1] else t


def _kept(step_: Plane, block: Tensor, keep: dict | None) -> Tensor:
    """`block`, noted in `keep` when that step is asked for there."""
    if keep is not None and id(step_) in keep:
        keep[id(step_)] = block
    return block


def apply_step(op: str, x: Tensor, tensor: Tensor | None, value: float | None, dtype: torch.dtype) -> Tensor:
    """One recipe step, written as the model's attention writes it (same operations and order)."""
    import torch
    if op == "scale":
        return x * needed(value, op)
    if op in ("bias", "mask"):
        return x + needed(tensor, op)
    if op == "softcap":
        return torch.tanh(x / needed(value, op)) * needed(value, op)
    if op == "softmax":  # in float32 (exp() overflows in half precision), back to the query's dtype
        return torch.nn.functional.softmax(x, dim=-1, dtype=torch.float32).to(dtype)
    raise ValueError(f"unknown recipe step {op!r}")


def step(plane: "Plane | Tensor", op: str, *, tensor: Tensor | None = None, value: float | None = None,
         dtype: torch.dtype | None = None) -> Plane:
    """The plane after one more step; a real tensor (an edited stage) becomes the chain's start."""
    import torch
    base = plane if isinstance(plane, Plane) else FromTensor(plane)
    if tensor is not None and dtype is None:  # an added mask or bias promotes as `+` does
        dtype = torch.promote_types(base.dtype, tensor.dtype)
    return Derived(base, op, dtype=dtype, tensor=tensor, value=value)


def context_by_heads(probs: Plane, value: Tensor, block_bytes: int | None = None,
                     each: Callable[[slice, slice, Tensor, Tensor], None] | None = None) -> Tensor:
    """probs · V, computed block by block (`Plane.blocks`): (B, H, Tq, Dh) without the whole plane at once.

    `value` (B, H, Tk, Dh) is already repeated for grouped heads (a `repeats.Repeated` one is read per K/V head,
    never copied). `each(heads, rows, block, context)`, when given, sees every block of the plane and its context
    while they are held.
    """
    import torch

    from tfdebug.core.repeats import times_value
    batch, heads, rows, _ = probs.shape
    if value.device.type == "meta" and each is None:  # a pass planned on the meta device (core.meta_plan): its shape
        return torch.empty((batch, heads, rows, value.shape[-1]), dtype=probs.dtype, device=value.device)
    blocks = probs.blocks(block_bytes)
    first = next(blocks, None)
    if first is None:  # no rows (or heads): nothing to multiply
        return torch.empty((batch, heads, rows, value.shape[-1]), dtype=probs.dtype, device=value.device)
    if first[0] == slice(0, heads) and first[1] == slice(0, rows):  # one block is the whole plane: a short one
        out = times_value(first[2], value, first[0])  # the same product as below, with no copy into a second tensor
        if each is not None:
            each(first[0], first[1], first[2], out)
        return out
    out = torch.empty((batch, heads, rows, value.shape[-1]), dtype=probs.dtype, device=value.device)
    for hs, rs, part in itertools.chain([first], blocks):
        out[:, hs, rs] = times_value(part, value, hs)  # (B, h, r, Dh)
        if each is not None:
            each(hs, rs, part, out[:, hs, rs])
    return out
