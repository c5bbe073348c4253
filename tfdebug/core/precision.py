"""What a floating-point dtype can hold, and how close a stage's values come to its limits.

Half precision fails at its edges: float16 overflows past 65,504 (a softmax's scores, an
activation that grew), bfloat16 keeps float32's range but only 8 bits of mantissa. The
Stats panel shows a stage's dtype range beside its values and flags values within a
factor of `NEAR_SHARE` of the largest finite number, before they become ±Inf.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfdebug.core.phrases import Phrase

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch

# Values above this share of finfo.max are "near overflow": one more doubling (a sum of two, a
# residual) would make them ±Inf.
NEAR_SHARE = 0.5


@dataclass(frozen=True)
class DtypeRange:
    """A floating-point dtype's limits: largest finite `max`, smallest normal `tiny`, machine `eps`."""

    dtype: str
    max: float
    tiny: float
    eps: float
    bits: int

    def near_overflow(self, max_abs: float | None, share: float = NEAR_SHARE) -> bool:
        """Whether a largest finite magnitude `max_abs` is within `share` of overflowing this dtype."""
        return max_abs is not None and math.isfinite(max_abs) and max_abs > share * self.max

    def headroom(self, max_abs: float | None) -> float | None:
        """How many times `max_abs` may still grow before it overflows (None without a finite, non-zero value)."""
        if max_abs is None or not math.isfinite(max_abs) or max_abs == 0:
            return None
        return self.max / abs(max_abs)

    def describe(self) -> str:
        """'float16: ±65504, eps 9.8e-04' (what the Stats panel prints beside the values)."""
        return f"{self.dtype}: ±{self.max:.5g}, eps {self.eps:.1e}"


def dtype_range(dtype: torch.dtype) -> DtypeRange | None:
    """The limits of a floating-point dtype; None for integer and boolean dtypes (nothing overflows there)."""
    import torch
    if not dtype.is_floating_point:
        return None
    info = torch.finfo(dtype)
    return DtypeRange(str(dtype).removeprefix("torch."), float(info.max), float(info.tiny), float(info.eps),
                      info.bits)


def overflow_note(dtype: torch.dtype, min_value: float | None, max_value: float | None) -> Phrase | None:
    """A sentence when a stage's finite extremes (stats computed with the stage's kind, so a mask's
    finfo.min cells are −∞ and do not count) come near its dtype's overflow, else None."""
    limits = dtype_range(dtype)
    finite = [abs(v) for v in (min_value, max_value) if v is not None and math.isfinite(v)]
    if limits is None or not finite or not limits.near_overflow(max(finite)):
        return None
    return Phrase("|x| reaches {value}, over half of {dtype}'s largest value {limit}: one doubling more and it "
                  "becomes ±Inf.", id="precision.near_overflow", value=f"{max(finite):.4g}", dtype=limits.dtype,
                  limit=f"{limits.max:.5g}")


HALF_MAX = 65504.0  # float16's largest finite value, torch.finfo(torch.float16).max


def half_overflow_note(dtype: torch.dtype, min_value: float | None, max_value: float | None) -> Phrase | None:
    """For a stage computed in another floating dtype (float32, bfloat16): a sentence when its finite
    extremes exceed float16's largest value, so the same pass run in float16 would hold ±Inf here;
    None otherwise (and for float16 stages, which `overflow_note` judges)."""
    import torch
    if not dtype.is_floating_point or dtype == torch.float16:
        return None
    finite = [abs(v) for v in (min_value, max_value) if v is not None and math.isfinite(v)]
    if not finite or max(finite) <= HALF_MAX:
        return None
    return Phrase("|x| reaches {value}, beyond float16's largest value {limit}: this stage would hold ±Inf if the "
                  "pass ran in float16.", id="precision.half_overflow", value=f"{max(finite):.4g}",
                  limit=f"{HALF_MAX:.5g}")
