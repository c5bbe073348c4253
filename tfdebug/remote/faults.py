"""What the server does with an error nobody expected: one log line and a sentence, and it serves on.

A request that fails with an exception no handler turned into a typed error (a bug, or an input
no check foresaw) must not end `tfdebug serve` and the attached window's session with it. The
server answers that request with a ServerFaultError (a sentence and a fault number) and logs one
line naming the fault, what failed and where; the same failure again is logged at its 1st, 10th,
100th … time, so a chore failing every turn cannot flood the log.
"""

from __future__ import annotations

import collections
import logging
import math
import traceback
from pathlib import Path

from tfdebug.core.safe_text import terminal_safe
from tfdebug.remote.errors import ServerFaultError

log = logging.getLogger("tfdebug")


class FaultLog:
    """Counts and logs the unexpected errors of one server; `count` is how many there were."""

    def __init__(self):
        self.count = 0
        self._seen: collections.Counter = collections.Counter()

    def record(self, exc: Exception, what: str) -> ServerFaultError:
        """Log `exc`, raised while doing `what` ("edit request", "beat"), and return the sentence answering it."""
        self.count += 1
        where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        at = f" ({Path(where.filename).name}:{where.lineno})" if where else ""
        why = terminal_safe(f"{type(exc).__name__}: {exc}", 200)
        key = (what, type(exc).__name__, at)
        self._seen[key] += 1
        if math.log10(self._seen[key]).is_integer():
            log.error("serve: fault %d (%s, seen %d times): %s%s; the server goes on serving.", self.count, what,
                      self._seen[key], why, at)
        return ServerFaultError("The server failed to answer this {what} ({why}); it goes on serving. Its log "
                                "names this fault {n}.", id="remote.server_fault", what=what, why=why, n=self.count)
