"""A time limit on pure-Python work another library runs for us (a chat template's Jinja code), kept inside the
process: nothing is killed, and the thread that ran over gets a sentence.

`time_limited(seconds, error)` traces the current thread only (`sys.settrace`: other threads, the window's
among them, run untraced) and raises `error()` at the first line executed after the deadline; the exception
unwinds the library's frames like any other, and the previous trace function is restored in `finally`.
Work inside one native call (a C loop, a regex in Rust) is not interrupted: the limit is for interpreted code.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def time_limited(seconds: float, error: Callable[[], BaseException]) -> Iterator[None]:
    """Run the block; raise `error()` inside it once it has run `seconds` of wall-clock time."""
    deadline = time.monotonic() + seconds
    clock = time.monotonic

    def tracer(frame, event, arg):
        if clock() > deadline:
            raise error()
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)
