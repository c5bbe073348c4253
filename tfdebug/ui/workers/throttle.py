"""Throttling with superqt: a callable run at most once per interval, at the end of it.

Events come by the hundred during Continue (a captured stage each), and the window's state,
status bar and the Generation and Overview docks follow them at most every few tens of ms.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject
from superqt.utils import QSignalThrottler


def throttler(ms: int, func: Callable[[], object], parent: QObject, leading: bool = False) -> QSignalThrottler:
    """A throttler that calls `func` `ms` after the first of a burst of `throttle()` calls (trailing); with
    `leading`, at that first call, then at most once per `ms` while the burst lasts (a single F10 is shown
    in its own turn, a Continue's hundreds of stages still every `ms`)."""
    throttle = QSignalThrottler(QSignalThrottler.EmissionPolicy.Leading if leading
                                else QSignalThrottler.EmissionPolicy.Trailing, parent)
    throttle.setTimeout(ms)
    throttle.triggered.connect(func)
    return throttle
