"""Tensors autograd would save, made again when its backward reads them instead of kept from the forward.

A backward's forward runs the attention planes whole (autograd differentiates them), and autograd keeps what
their backward reads: the softmax's probabilities (in float32, and in the model's dtype where that is narrower,
for the product with V) and a soft cap's tanh — O(heads × tokens²) per layer, every layer's until its backward
runs (4.3 GB of SmolLM-135M's shape at 2,048 tokens in float32). Inside `Recomputed.saving()`
(`torch.autograd.graph.saved_tensors_hooks`), a tensor autograd saves whose storage is one that the block
registered (`made`) is packed as its place in the block's arithmetic (its index, shape, strides and offset), and
when the backward reads it the arithmetic runs again (`again`, from the detached O(tokens × width) inputs, once
per attention: the second reader of the same call finds it made) and the view is taken of its result.

The arithmetic made again is the forward's own code on the same inputs, so its tensors are equal bit for bit
(deterministic kernels: a CPU's, or a GPU's without atomics in these ops), and every gradient autograd computes
from them is the gradient it computes from the kept ones: the graph, its nodes and its hooks are the same.
Everything else autograd saves in the block is kept as usual.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from torch import Tensor


class _Saved:
    """A tensor autograd saved in the block: the tensor itself, or (once its storage is registered) its place in the
    arithmetic — the `index`-th registered tensor, and the view of it (size, strides, offset)."""

    __slots__ = ("tensor", "index", "size", "stride", "offset")

    def __init__(self, tensor: Tensor):
        self.tensor: Tensor | None = tensor
        self.index = -1
        self.size: tuple[int, ...] = ()
        self.stride: tuple[int, ...] = ()
        self.offset = 0

    def place(self, index: int) -> None:
        """Keep only the tensor's place: the `index`-th registered tensor, and the view of it."""
        tensor = self.tensor
        assert tensor is not None
        self.index, self.size, self.stride = index, tuple(tensor.shape), tuple(tensor.stride())
        self.offset, self.tensor = tensor.storage_offset(), None


class Recomputed:
    """The tensors a block registers (`made`, in the order of its arithmetic), given to autograd as their place in
    that arithmetic and made again by `again()` (the same arithmetic, returning the same tensors in the same order)
    when autograd's backward reads them.

    `stopped`: the block's arithmetic no longer follows from `again`'s inputs (a tap edited a stage), so what is
    registered after it is kept as usual. `recomputations` counts the runs of `again` (all blocks: `total`)."""

    total = 0

    def __init__(self, again: Callable[[], list[Tensor]]):
        self._again = again
        self._made: dict[int, tuple[int, Tensor]] = {}  # storage address → (index, tensor), while the block runs
        self._count = 0
        self._packed: dict[int, int] = {}  # index → saved tensors of it not yet read by the backward
        self._cache: list[Tensor | None] | None = None
        self._unread: dict[int, int] = {}
        self._pending: list[_Saved] = []  # saved before their storage was registered, while the block runs
        self.stopped = False
        self.recomputations = 0

    def made(self, tensor: Tensor) -> Tensor:
        """Register `tensor`, the next tensor of the block's arithmetic (held until the block ends, so that its
        storage's address names it alone); returns it."""
        index, self._count = self._count, self._count + 1
        if self.stopped or not _addressable(tensor) or tensor.storage_offset() != 0:
            return tensor
        address = tensor.untyped_storage().data_ptr()
        index, _ = self._made.setdefault(address, (index, tensor))
        for saved in self._pending:  # saved as it was made (an op's own output: the softmax's, the tanh's)
            if saved.tensor is not None and saved.tensor.dtype == tensor.dtype and \
                    saved.tensor.untyped_storage().data_ptr() == address:
                saved.place(index)
                self._packed[index] = self._packed.get(index, 0) + 1
        return tensor

    @contextmanager
    def saving(self) -> Iterator[Recomputed]:
        """The block in which autograd saves the registered tensors as their place in the arithmetic."""
        import torch

        try:
            with torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack):
                yield self
        finally:
            self._made.clear()  # the forward's tensors go as they would
            self._pending.clear()

    def _pack(self, tensor: Tensor) -> _Saved:
        saved = _Saved(tensor)
        found = self._made.get(tensor.untyped_storage().data_ptr()) if _addressable(tensor) else None
        if found is not None and found[1].dtype == tensor.dtype and not self.stopped:
            saved.place(found[0])
            self._packed[found[0]] = self._packed.get(found[0], 0) + 1
        elif _addressable(tensor):
            self._pending.append(saved)
        return saved

    def _unpack(self, saved: _Saved) -> Tensor:
        if saved.tensor is not None:
            return saved.tensor
        if self._cache is None:
            import torch

            with torch.no_grad():
                self._cache = list(self._again())
            self.recomputations += 1
            Recomputed.total += 1
            self._unread = dict(self._packed)
        made = self._cache[saved.index]
        if made is None:  # read twice (a graph kept for a second backward): made again
            self._cache = None
            return self._unpack(saved)
        self._unread[saved.index] -= 1
        if self._unread[saved.index] <= 0:  # every saved view of it read: the backward is past it
            self._cache[saved.index] = None
            if not any(self._unread.values()):
                self._cache = None
        return made.as_strided(saved.size, saved.stride, saved.offset)


def _addressable(tensor: Tensor) -> bool:
    """Whether `tensor` has a storage of its own whose address names it (a strided tensor with real data)."""
    import torch

    return tensor.layout == torch.strided and tensor.device.type != "meta" and not tensor.is_nested
