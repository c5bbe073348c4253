"""Noise you can see: every timed section carries an A/A ratio (the same thing timed twice
in the same run), and no pass/fail verdict is stated when that ratio says the machine was busy."""

from __future__ import annotations

AA_LOW, AA_HIGH = 0.95, 1.05
TOO_BUSY = "machine too busy: rerun"


def trustworthy(aa_ratio: float | None) -> bool:
    """Whether a section's A/A ratio is within 0.95–1.05 (its figures can be judged)."""
    return aa_ratio is not None and AA_LOW <= aa_ratio <= AA_HIGH


def verdict(value: float | None, target: float, aa_ratio: float | None, higher_is_better: bool = False) -> str:
    """"pass" / "fail" against `target`, or TOO_BUSY when the A/A ratio is out of range."""
    if value is None:
        return "n/a"
    if not trustworthy(aa_ratio):
        return TOO_BUSY
    ok = value >= target if higher_is_better else value <= target
    return "pass" if ok else "fail"


def halves_ratio(samples: list[float]) -> float | None:
    """A/A of a series of repeats of one operation: median of the second half over the first."""
    if len(samples) < 4:
        return None
    half = len(samples) // 2
    first, second = sorted(samples[:half]), sorted(samples[half:2 * half])
    return round(second[len(second) // 2] / first[len(first) // 2], 4)
