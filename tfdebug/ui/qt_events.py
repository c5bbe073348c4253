"""Qt adapter for a Stepper: its plain-callback events become a queued Qt signal.

The stepper calls observers on its worker thread; emitting a signal of a QObject that
lives in the UI thread from there makes Qt queue the call, so slots run on the UI thread.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from tfdebug.core.stepper import Stepper, StepperEvent


class StepperSignals(QObject):
    """Subscribes to one stepper; `event(stepper, StepperEvent)` arrives on the UI thread."""

    event = Signal(object, object)

    def __init__(self, stepper: Stepper, parent: QObject | None = None):
        super().__init__(parent)
        self.stepper = stepper
        stepper.subscribe(self._forward)

    def _forward(self, event: StepperEvent) -> None:
        self.event.emit(self.stepper, event)

    def detach(self) -> None:
        """Stop listening; events already queued still arrive and carry their stepper."""
        self.stepper.unsubscribe(self._forward)
