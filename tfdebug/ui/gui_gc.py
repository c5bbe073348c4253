"""Python's cyclic garbage collection, run only in the GUI thread.

Automatic collection runs in whichever thread happens to allocate; when that is a
worker (loading a model, running the forward) and the garbage holds Qt widgets, Qt
objects get destroyed off the GUI thread — which Qt forbids, and which deadlocked the
loader thread against the event loop here. So automatic collection is switched off
and a timer in the GUI thread collects instead (pyqtgraph's GarbageCollector).

What exists when the collector starts (torch, Qt, pyqtgraph and every other module:
~200,000 objects) lives as long as the process, so it is frozen out of collection
(`gc.freeze`): otherwise every full collection walks all of it in the GUI thread,
~80-230 ms during which the window cannot paint or take a key press.
"""

from __future__ import annotations

import gc

from pyqtgraph.util.garbage_collector import GarbageCollector

_collector: GarbageCollector | None = None


def collect_in_gui_thread(interval_s: float = 1.0) -> None:
    """Start the GUI-thread collector once per process (call from the GUI thread)."""
    global _collector
    if _collector is None:
        gc.collect()  # the garbage of start-up goes now, not into the frozen generation
        gc.freeze()
        _collector = GarbageCollector(interval=interval_s)
