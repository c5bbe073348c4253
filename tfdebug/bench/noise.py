"""Noise you can see: every timed section carries an A/A ratio (the same thing timed twice
in the same run), and no pass/fail verdict is stated when that ratio says the machine was busy.

A section's rows carry their A/A under one of `AA_KEYS`; `noisy_rows` finds the rows out of
range anywhere in a section's result, so the runner can retry the section and then mark
what stayed noisy (tfdebug.bench.runner).
"""

from __future__ import annotations

from typing import Iterator

AA_LOW, AA_HIGH = 0.95, 1.05
TOO_BUSY = "machine too busy: rerun"
#: the keys under which a section's rows state their A/A ratio
AA_KEYS = ("aa_ratio", "aa_ratio_settled", "ratio_plain_again")


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


def halves_ratio(samples: list[float], labels: list | None = None) -> float | None:
    """A/A of a series of repeats of one operation: median of the second half over the first. With `labels`
    (what each repeat did: the stage a step went to), each label's repeats are paired — its first ones with as
    many of its last — and the A/A is the median of the pairs' ratios: steps to cheap and to dear stages differ by
    more than the machine drifts, and halves pooled across labels mixed the two (ten steps a source read 0.84 to
    1.24 on a quiet machine)."""
    if labels is None:
        first, second = sorted(samples[:len(samples) // 2]), sorted(samples[len(samples) - len(samples) // 2:])
        if len(first) < 2:
            return None
        return round(second[len(second) // 2] / first[len(first) // 2], 4)
    by_label: dict = {}
    for sample, label in zip(samples, labels):
        by_label.setdefault(label, []).append(sample)
    ratios = sorted(b / a for group in by_label.values()
                    for a, b in zip(group[:len(group) // 2], group[len(group) - len(group) // 2:]))
    if len(ratios) < 2:
        return None
    middle = len(ratios) // 2
    return round(ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2, 4)


def _rows(value) -> Iterator[dict]:
    """Every dict in a nest of dicts and lists (a section's result and its rows)."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _rows(item)
    elif isinstance(value, list):
        for item in value:
            yield from _rows(item)


def noisy_rows(section_result) -> list[dict]:
    """The rows of a section's result whose A/A ratio (any of AA_KEYS) is outside 0.95–1.05.

    A row without an A/A ratio (a count, a size) is never noisy; an A/A of None (too few
    repeats to halve) is not judged either."""
    return [row for row in _rows(section_result)
            if any(isinstance(row.get(key), (int, float)) and not trustworthy(row[key]) for key in AA_KEYS)]
