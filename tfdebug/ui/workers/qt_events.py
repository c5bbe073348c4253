"""Qt adapter for a Stepper: its plain-callback events become a queued Qt signal.

The stepper calls observers on its worker thread; emitting a signal of a QObject that
lives in the UI thread from there makes Qt queue the call, so slots run on the UI thread.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from tfdebug.core.stepper import Stepper, StepperEvent


class StepperSignals(QObject):
    """Subscribes to one stepper; `event(stepper, StepperEvent)` arrives on the UI thread.

    "captured" events come by the hundred during Continue; while one is queued and not
    yet delivered, later ones are dropped (they carry nothing the history does not),
    so the UI thread handles a few per second instead of one per stage.
    """

    event = Signal(object, object)
    _queued = Signal(object)

    def __init__(self, stepper: Stepper, parent: QObject | None = None):
        super().__init__(parent)
        self.stepper = stepper
        self._captured_queued = False
        self._lock = threading.Lock()
        self._queued.connect(self._deliver)
        stepper.subscribe(self._forward)

    def _forward(self, event: StepperEvent) -> None:
        if event.type == "captured":
            with self._lock:
                if self._captured_queued:
                    return
                self._captured_queued = True
        self._queued.emit(event)

    def _deliver(self, event: StepperEvent) -> None:
        if event.type == "captured":
            with self._lock:
                self._captured_queued = False
        self.event.emit(self.stepper, event)

    def detach(self) -> None:
        """Stop listening; events already queued still arrive and carry their stepper."""
        self.stepper.unsubscribe(self._forward)
