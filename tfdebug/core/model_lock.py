"""One forward of a model at a time across threads.

A check against the unmodified model runs in the background after a capture; a new
session on the same model (a probe of its structure, a plan, another capture) must not
run its forward at the same time: taps and the attention function fire in whichever
forward passes through them, and a check switches the model's attention implementation
while it runs.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import nn

_LOCKS: "weakref.WeakKeyDictionary[nn.Module, threading.Lock]" = weakref.WeakKeyDictionary()
_LOCKS_LOCK = threading.Lock()


def forward_lock(module: nn.Module) -> threading.Lock:
    """The lock every tfdebug forward of `module` (probe, plan, capture, check) holds while it runs."""
    with _LOCKS_LOCK:
        lock = _LOCKS.get(module)
        if lock is None:
            lock = _LOCKS[module] = threading.Lock()
        return lock
