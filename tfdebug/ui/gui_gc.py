"""Python's cyclic garbage collection, run only in the GUI thread.

Automatic collection runs in whichever thread happens to allocate; when that is a
worker (loading a model, running the forward) and the garbage holds Qt widgets, Qt
objects get destroyed off the GUI thread — which Qt forbids, and which deadlocked the
loader thread against the event loop here. So automatic collection is switched off
and a timer in the GUI thread collects instead (pyqtgraph's GarbageCollector).
"""

from __future__ import annotations

from pyqtgraph.util.garbage_collector import GarbageCollector

_collector: GarbageCollector | None = None


def collect_in_gui_thread(interval_s: float = 1.0) -> None:
    """Start the GUI-thread collector once per process (call from the GUI thread)."""
    global _collector
    if _collector is None:
        _collector = GarbageCollector(interval=interval_s)
