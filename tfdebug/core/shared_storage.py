"""Storages that several kept captures share, counted once while any of them is kept.

A generation's K/V cache stages are views of one buffer per layer (`adapters.hf.kv_rows`):
step 5's `cache_k` is the first rows of step 6's. Counting each view's own elements would
count the buffer once a step; a `StorageLedger` counts the storage under them once, and
says it frees only when the last capture holding it goes. The capture budget keys the
captures it keeps by arrival (an int); the ledger only sees those keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

#: A storage: (its data pointer, its bytes).
Storage = tuple[int, int]


def storage_under(tensor: torch.Tensor) -> Storage:
    """The storage `tensor` is a view of."""
    storage = tensor.untyped_storage()
    return storage.data_ptr(), storage.nbytes()


@dataclass
class StorageLedger:
    """The storages under kept captures that share them, and which kept captures (keys) hold each."""

    _holders: dict[int, tuple[int, set[int]]] = field(default_factory=dict)  # data pointer → (bytes, keys)
    _of: dict[int, int] = field(default_factory=dict)  # key → the data pointer of the storage it holds

    def __len__(self) -> int:
        """How many storages are held."""
        return len(self._holders)

    def cost(self, storage: Storage) -> int:
        """Bytes one more holder of `storage` adds: all of it unless it is held already."""
        return 0 if storage[0] in self._holders else storage[1]

    def of(self, key: int) -> int | None:
        """The data pointer of the storage the capture `key` holds (None: it holds none here)."""
        return self._of.get(key)

    def hold(self, key: int, storage: Storage) -> None:
        """The capture `key` is kept and holds `storage`."""
        self._holders.setdefault(storage[0], (storage[1], set()))[1].add(key)
        self._of[key] = storage[0]

    def freed(self, key: int, leaving: dict[int, int]) -> int | None:
        """Bytes letting `key` go frees when the holders counted in `leaving` (data pointer → how many) go too;
        counts `key` in `leaving`. None when `key` holds no storage here."""
        pointer = self._of.get(key)
        if pointer is None:
            return None
        leaving[pointer] = leaving.get(pointer, 0) + 1
        size, holders = self._holders[pointer]
        return size if leaving[pointer] == len(holders) else 0

    def frees(self, key: int, leaving: dict[int, int]) -> bool:
        """Whether letting `key` go with the holders in `leaving` frees anything (a capture holding no storage
        here frees its own)."""
        pointer = self._of.get(key)
        return pointer is None or leaving[pointer] == len(self._holders[pointer][1])

    def let_go(self, key: int) -> int | None:
        """Forget `key`; the bytes that frees (its storage's when it was the last holder, else 0). None when `key`
        holds no storage here."""
        pointer = self._of.pop(key, None)
        if pointer is None:
            return None
        size, holders = self._holders[pointer]
        holders.discard(key)
        if holders:
            return 0
        del self._holders[pointer]
        return size

    def clear(self) -> None:
        """Hold nothing."""
        self._holders.clear()
        self._of.clear()
