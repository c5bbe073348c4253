"""Work around a PySide6 6.12 refcount bug on Python < 3.12.

PySide6/shiboken6 6.12 (abi3 wheels) releases one reference to None for every call of
a method returning void, and to True/False in some paths, as if those objects were
immortal (they are from Python 3.12 on). On 3.10/3.11 the count reaches zero after a
few thousand calls and the interpreter aborts ("deallocating None"). Giving the three
singletons a very large reference count makes them immortal in practice; it changes
nothing else. Applied once, when tfdebug.ui is imported.
"""

from __future__ import annotations

import ctypes
import sys

_BALLAST = 1 << 40


def apply() -> bool:
    """Raise the refcounts of None, True and False on Python < 3.12; True when applied."""
    if sys.version_info >= (3, 12) or getattr(sys, "_tfdebug_refcount_fix", False):
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += _BALLAST
    sys._tfdebug_refcount_fix = True
    return True
