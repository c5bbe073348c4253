"""Job: the one pattern for long work off the UI thread (loading a model, exporting, generating).

    job = Job(work, name="load")          # work(job) -> result; may call job.report(...)
    job.finished.connect(on_result)       # arrives on the UI thread
    job.failed.connect(on_error)          # (sentence, details)
    job.start()
    job.cancel()                           # work sees job.cancelled; a late result is dropped

Signals are emitted from the worker thread on a QObject that lives in the UI thread,
so Qt queues them; slots run on the UI thread. A Job keeps itself alive while its
thread runs (no parent that could delete it under the thread), and `wait()` lets a
closing window join it instead of leaving a thread inside torch at interpreter exit.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from tfdebug.core.errors import TfdebugError
from tfdebug.core.foreign import INTERRUPTS
from tfdebug.ui.i18n.language import error_phrase, said

_RUNNING: set["Job"] = set()  # strong references while threads run


class JobCancelled(Exception):
    """Raised by `Job.check()` inside work that notices it was cancelled."""


class Job(QObject):
    """One piece of long work on a worker thread, reported through signals."""

    started = Signal()
    progress = Signal(object, object)   # (done, total)
    finished = Signal(object)           # the work's result (not emitted when cancelled)
    failed = Signal(object, str)        # a user sentence (a Message content), details (an exception's text)
    cancelled_signal = Signal()
    _ended = Signal()                   # last of all; releases the job on the UI thread

    def __init__(self, work: Callable[["Job"], Any], name: str = "work",
                 describe_failure: Callable[[BaseException], str] | None = None):
        super().__init__()
        self._work = work
        self.name = name
        self._cancel = threading.Event()
        # What to say about an unexpected exception: a Message content (a Said, `said(lambda: self.tr(…))`,
        # is said again in another language after View ▸ Language).
        self._describe = describe_failure or (lambda exc: said(lambda: self.tr("The work failed unexpectedly.")))
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"tfdebug-{name}")
        self.done = False
        # Released on the UI thread after its other signals were delivered: a job dropped
        # by its owner still reaches its slots.
        self._ended.connect(self._release)

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def start(self) -> None:
        _RUNNING.add(self)
        self._thread.start()

    def cancel(self) -> None:
        """Ask the work to stop; whatever it returns afterwards is dropped."""
        self._cancel.set()

    def check(self) -> None:
        """Call from inside the work at safe points: raises JobCancelled when cancelled."""
        if self._cancel.is_set():
            raise JobCancelled()

    def report(self, done, total) -> bool:
        """Progress from inside the work; returns False once cancelled."""
        self._emit(self.progress, done, total)
        return not self._cancel.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Join the worker thread; True when it has ended."""
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        try:
            self._emit(self.started)
            result = self._work(self)
        except JobCancelled:
            self._emit(self.cancelled_signal)
        except TfdebugError as exc:
            self._emit(self.failed, error_phrase(exc), "")
        except INTERRUPTS:
            raise
        except BaseException as exc:  # someone's model or file (a Rust panic is a BaseException): said in words
            if not self.cancelled:
                self._emit(self.failed, self._describe(exc), f"{type(exc).__name__}: {exc}")
        else:
            if self.cancelled:
                self._emit(self.cancelled_signal)
            else:
                self._emit(self.finished, result)
        finally:
            self.done = True
            self._emit(self._ended)

    def _release(self) -> None:
        _RUNNING.discard(self)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the receiver's side was torn down while the window closed
            pass


def wait_for_all(timeout: float = 30.0) -> bool:
    """Cancel and join every running job within `timeout` seconds in all (a closing application calls this
    before Python shuts down); True when none is left running."""
    deadline = time.monotonic() + timeout
    for job in list(_RUNNING):
        job.cancel()
    for job in list(_RUNNING):
        job.wait(max(0.0, deadline - time.monotonic()))
    return not any(job.running for job in list(_RUNNING))
