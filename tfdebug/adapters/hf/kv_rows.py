"""A generation's K/V cache kept once: every step's keys and values are views of the rows so far in one buffer.

transformers' `DynamicLayer` grows by concatenation: each step makes new key and value tensors of every token so
far and lets the old ones go. A generation that keeps every step's `cache_k`/`cache_v` (tfdebug shows each step's
cache) then keeps one whole copy a step, so its memory grows with the square of its length (at a 4,096-token
prompt, SmolLM-135M's cache is 189 MB: one copy for every generated token). `RowsLayer` writes each step's new rows
into a buffer that only grows by appending, and hands out views of its first n rows: the values are the ones the
concatenation would give (the same numbers, in the same places), a step's view stays what it was when later rows
are written, and all steps' captures share the buffer. A buffer has room for the rows the generation said it would
feed (`share_rows`'s `rows`), but never more than twice the rows it holds when made (at least `_ROOM` more): a
generation allowed 100,000 tokens reserves nothing it may never use. When full it is made again twice as large; a
view of an earlier buffer keeps that one alive, so the buffers of one layer hold at most four times its rows
(and `2 × _ROOM` more).

Layers of other kinds (sliding windows, which drop their oldest rows; static and quantized caches) are left as
they are: `share_rows` replaces plain `DynamicLayer`s only.
"""

from __future__ import annotations

from functools import partial

import torch
from torch import Tensor
from transformers.cache_utils import DynamicLayer

#: the fewest rows a new buffer has room for beyond the ones it holds (one token a row)
_ROOM = 16


class RowsLayer(DynamicLayer):
    """A `DynamicLayer` whose keys and values are views of a buffer that grows by appending rows."""

    def __init__(self, rows: int = 0, **kwargs):
        super().__init__(**kwargs)
        self._rows = rows  # the rows the generation expects to hold: the first buffer's room
        self._buffers: tuple[Tensor, Tensor] | None = None
        self._given: tuple[Tensor, Tensor] | None = None  # the views `update` handed out last

    def update(self, key_states: Tensor, value_states: Tensor, *args, **kwargs) -> tuple[Tensor, Tensor]:
        """Append this step's keys and values; every key and value so far (views of the buffer)."""
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        keys, values = self.keys, self.values
        assert keys is not None and values is not None  # lazy_initialization made them
        held = keys.shape[-2] if keys.numel() else 0
        rows = held + key_states.shape[-2]
        given = self._given is not None and keys is self._given[0] and values is self._given[1]
        # Anything else (the first step; keys transformers replaced: a crop, a beam reordering, offloading) starts a
        # new buffer from what is there: rows handed out before are never written again.
        if not given or self._buffers is None or self._buffers[0].shape[-2] < rows:
            room = max(2 * rows, rows + _ROOM)  # bounded: a generation said to be long reserves no more up front
            room = min(room, self._rows) if self._rows >= rows else room
            self._buffers = (_grown(keys, key_states, held, room), _grown(values, value_states, held, room))
        buffer_k, buffer_v = self._buffers
        buffer_k[..., held:rows, :].copy_(key_states)
        buffer_v[..., held:rows, :].copy_(value_states)
        self.keys, self.values = self._given = (buffer_k[..., :rows, :], buffer_v[..., :rows, :])
        return self.keys, self.values

    def reset(self) -> None:
        """Forget the buffers with the keys and values."""
        self._buffers = self._given = None
        super().reset()


def _grown(held: Tensor, new: Tensor, count: int, rows: int) -> Tensor:
    """A new buffer of `rows` rows shaped like `new`, its first `count` rows copied from `held`."""
    shape = (*new.shape[:-2], rows, new.shape[-1])
    buffer = torch.empty(shape, dtype=new.dtype, device=new.device)
    if count:
        buffer[..., :count, :].copy_(held)
    return buffer


def share_rows(cache, rows: int) -> None:
    """Make the plain `DynamicLayer`s of a transformers `DynamicCache` (the self-attention half of an
    `EncoderDecoderCache`: cross-attention's is made once) keep their rows in one buffer (`RowsLayer`), with room for
    `rows` rows (every token a generation will feed); other layer kinds, and layers already holding rows, stay."""
    part = getattr(cache, "self_attention_cache", cache)
    part.layers = [RowsLayer(rows) if type(layer) is DynamicLayer and not layer.is_initialized else layer
                   for layer in part.layers]
    if getattr(part, "layer_class_to_replicate", None) is DynamicLayer:  # layers made as the model asks for them
        part.layer_class_to_replicate = partial(RowsLayer, rows)
