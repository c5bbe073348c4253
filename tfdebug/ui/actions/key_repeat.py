"""KeyRepeats: whether the key that triggers an action now is an auto-repeat (a key held down).

A held F10 sends a press every ~40 ms; a stage can take longer to run and show. Queued, those
repeats would keep stepping for seconds after the key is released. The stepping actions drop
a repeat that arrives while the last step is still being shown, so a held key steps at the rate
stages are shown and stops when released; a deliberate press is never dropped.

Qt hands a shortcut's key to the focused widget first as a ShortcutOverride event carrying the
auto-repeat flag, then triggers the action; the watch notes the flag of the latest such event.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QKeyEvent

KEY_EVENTS = (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)


class KeyRepeats(QObject):
    """Watches the application's key events; `repeating` is the latest one's auto-repeat flag."""

    def __init__(self, parent: QObject):
        super().__init__(parent)
        self.repeating = False
        QCoreApplication.instance().installEventFilter(self)  # removed by Qt when this object goes

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Every event of the application passes here: the class check first (asking an event its type costs
        # more, and a paint or a timer is never a key).
        if isinstance(event, QKeyEvent) and event.type() in KEY_EVENTS:
            self.repeating = event.isAutoRepeat()
        return False  # only watched: every key goes on as before
