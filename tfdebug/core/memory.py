"""Opt-in allocator tuning so repeated captures reuse warm pages, and handing memory back.

A captured pass keeps every stage's tensor alive, so it cannot reuse the buffers the
plain forward recycles; on CPU most of its extra cost is the kernel handing out fresh
zeroed pages (one page fault per 4 KiB). glibc returns freed memory to the kernel
when the top of the heap holds more than a threshold, and serves large blocks with
fresh mmaps, so each new capture faults its whole size in again. Raising both
thresholds, and the padding kept when the heap is trimmed, makes the next capture
reuse the pages the previous one released: up to 2 GiB of freed memory stays with the
process. All threads share one arena, since the stepper's forward runs in a fresh
thread each pass.

This changes the whole process (every thread's allocations), so nothing in tfdebug
does it as a side effect: the `tfdebug` application opts in at start-up, and library
users call `keep_freed_memory()` when they want it. `release_freed_memory()` hands
freed memory back whether or not the tuning is on (DebugSession.close calls it).

Only glibc (Linux) is tuned; elsewhere both functions do nothing. The environment
variable TFDEBUG_KEEP_FREED_MEMORY=0 makes the opt-in a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading

_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
_MMAP_THRESHOLD_MAX = 32 << 20  # glibc's ceiling on 64-bit (HEAP_MAX_SIZE / 2)
_KEEP = 2**31 - 1  # the largest value mallopt's int takes: 2 GiB
KEPT_FREE_BYTES = _KEEP  # freed memory the tuning lets the process keep (a stated peak counts it: sessions.peak)

_lock = threading.Lock()
_state: dict[str, bool] = {}


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def keep_freed_memory() -> bool:
    """Opt in: tune glibc for repeated large captures, once per process; True when in effect.

    Process-wide and permanent (glibc has no way to read the old settings back), so
    only an application's start-up should call it.
    """
    with _lock:
        if "tuned" in _state:
            return _state["tuned"]
        tuned = False
        if os.environ.get("TFDEBUG_KEEP_FREED_MEMORY", "1") != "0":
            libc = _libc()
            if libc is not None:
                # Trimming starts above _KEEP bytes free and then keeps _KEEP of them (top pad),
                # so a capture larger than 2 GiB faults in only what exceeds it.
                tuned = all(libc.mallopt(param, value) for param, value in (
                    (_M_TRIM_THRESHOLD, _KEEP), (_M_TOP_PAD, _KEEP), (_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX),
                    # One arena: a worker thread's own arena lives in 64 MiB heaps that glibc
                    # unmaps whole once empty, whatever the thresholds say.
                    (_M_ARENA_MAX, 1)))
        _state["tuned"] = tuned
        return tuned


def allocator_tuned() -> bool:
    """Whether `keep_freed_memory()` has tuned this process."""
    return _state.get("tuned", False)


def release_freed_memory() -> None:
    """Hand memory freed by dropped captures back to the system.

    Call it after dropping a large capture (`del rec`): glibc otherwise keeps freed
    blocks below the top of its heaps, and with the tuning on up to 2 GiB on top.
    """
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
