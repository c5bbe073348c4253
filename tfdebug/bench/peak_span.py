"""A bench row's measured span: its seconds and the process's high-water mark over it, and the peak stated before it
beside the one measured. The backward rows (`bench.backward_real`, `bench.backward_window`) keep their books with it.
"""

from __future__ import annotations

import time


class PeakSpan:
    """Started now: the process's high-water mark restarted (`bench.real_size._restart_peak`), then the RSS (`before`)
    and the clock (`start`) read."""

    def __init__(self):
        from tfdebug.bench.real_size import _restart_peak, _rss

        _restart_peak()
        self.before = _rss()
        self.start = time.perf_counter()

    def seconds(self) -> float:
        """Seconds since the start, to 2 places."""
        return round(time.perf_counter() - self.start, 2)

    def above(self, baseline: int | None = None) -> int:
        """Bytes of the high-water mark since the start above the RSS then (or above `baseline`, an RSS read later)."""
        from tfdebug.bench.real_size import high_water

        return max(0, high_water() - (self.before if baseline is None else baseline))


def stated_against_measured(stated: int, measured: int) -> dict:
    """A row's verdict on a peak stated before the work: `held` (measured ≤ stated) and `measured_over_stated` (3
    places; None with no statement)."""
    return {"held": measured <= stated, "measured_over_stated": round(measured / stated, 3) if stated else None}
