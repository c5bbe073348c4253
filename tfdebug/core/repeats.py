"""Grouped-query attention's repeated K and V as recipes: each K/V head copied for its query heads when looked at.

A model with fewer K/V heads than query heads repeats each K/V head for its group (`repeat_kv`): a copy of the
whole cache per layer per token, (B, H, Tk, Dh), that the scores and the context read. `Repeated` is that stage
as a recipe (tfdebug.core.recipes): it keeps the K/V heads it reads and copies them when a reader looks at it,
bit for bit what `repeat_kv` makes; the scores and the context multiply by each K/V head where it is
(`grouped_product`: for a generated token, the same product per (batch, head) as with the repeat, without the
copy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdebug.core.recipes import ALL, ROW_ALIGN, Plane, _kept

if TYPE_CHECKING:
    from torch import Tensor

#: the stage kind of a repeated K or V (the one kind besides the planes' a recipe may be)
REPEAT_KIND = "kv_repeat"


class Repeated(Plane):
    """K or V (B, H_kv, Tk, Dh) with each head repeated `groups` times: (B, H_kv·groups, Tk, Dh), head h reading
    K/V head h // groups, as `repeat_kv` makes it."""

    op = "repeat"

    def __init__(self, source: Tensor, groups: int):
        batch, kv_heads, length, head_dim = source.shape
        super().__init__((batch, kv_heads * groups, length, head_dim), source.dtype, source.device)
        self.source, self.groups = source, groups

    def inputs(self):
        """The K or V heads repeated, by role."""
        return {"tensor": self.source}

    def constants(self):
        """How many times each head is repeated."""
        return {"groups": self.groups}

    def block(self, batch: slice, heads: slice, rows: slice | Tensor = ALL, keep: dict | None = None) -> Tensor:
        """The repeated heads start … stop-1 at a batch range and a range of positions: (b, h, r, Dh), copied."""
        start, stop, _ = heads.indices(self.shape[1])
        g = self.groups
        part = self.source[batch, start // g: max(start // g, (stop - 1) // g + 1), rows]
        part = part.repeat_interleave(g, dim=1)[:, start - start // g * g:][:, : max(0, stop - start)]
        return _kept(self, part, keep)


def grouped_product(x: Tensor, kv: Tensor, start: int, groups: int, transpose: bool = False) -> Tensor:
    """`x` (b, h, r, ·) of query heads start … start+h-1, each times its K/V head of `kv` (b, H_kv, Tk, Dh),
    transposed with `transpose`: the product with the repeated K or V, bit for bit.

    A few rows (a generated token's) of whole groups of heads on the CPU: one product per K/V head, that head
    expanded over its group without a copy (the same (batch, head) products, in batches of whole groups; a
    broadcast head would be folded into one product of more rows, other sums). Otherwise, as before: the K/V
    heads of the block repeated (a copy of the block's alone), then one product. float16 always takes the copy:
    its CPU products of an expanded head summed in another order (3 rows, 7 keys: other bits)."""
    import torch
    n = x.shape[1]
    if (x.device.type == "cpu" and x.dtype != torch.float16 and x.shape[2] < ROW_ALIGN and start % groups == 0
            and n % groups == 0):
        parts = []
        for h in range(0, n, groups):
            other = kv[:, (start + h) // groups:(start + h) // groups + 1].expand(-1, groups, -1, -1)
            parts.append(torch.matmul(x[:, h:h + groups], other.transpose(2, 3) if transpose else other))
        return parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)
    first = start // groups
    other = kv[:, first:max(first, (start + n - 1) // groups + 1)].repeat_interleave(groups, dim=1)
    other = other[:, start - first * groups:][:, :n]  # (b, h, Tk, Dh)
    return torch.matmul(x, other.transpose(2, 3) if transpose else other)


def times_value(part: Tensor, value: Tensor, heads: slice) -> Tensor:
    """A block of probabilities (b, h, r, Tk) of query heads `heads` times their V: a `Repeated` V read per K/V
    head (`grouped_product`), any other V (B, H, Tk, Dh) at those heads."""
    import torch
    if isinstance(value, Repeated):
        return grouped_product(part, value.source, heads.indices(value.shape[1])[0], value.groups)
    return torch.matmul(part, value[:, heads])
