"""The token strip: the prompt and every generated token, one button each, in the Generation dock.

Each generated token shows its probability; hovering shows the five likeliest
alternatives of its step; clicking goes to the step that chose it (the prompt: step
0). The tokens the step on screen feeds are outlined, the token it chose is filled,
and tokens chosen after it (seen again by stepping back) are dimmed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QScrollArea, QToolButton, QWidget

from tfdebug.ui.render.plain_text import plain_tooltip

if TYPE_CHECKING:  # the generation session (and torch) load with a model, not with the window
    from tfdebug.sessions.generation import TokenEntry

# Data-driven looks: a dynamic property per state, one style sheet.
STYLE = """
QToolButton { border: 1px solid palette(mid); border-radius: 3px; padding: 2px 6px; }
QToolButton[role="fed"] { border: 2px solid #2a7fff; }
QToolButton[role="chosen"] { background: #ffd54a; color: black; border: 2px solid #c79a00; }
QToolButton[role="later"] { color: palette(mid); border-style: dashed; }
"""


class TokenStrip(QScrollArea):
    """A horizontal row of token buttons; `step_clicked(step)` when one is clicked."""

    step_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("token-strip")
        self.setWidgetResizable(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        inner = QWidget()
        self._row = QHBoxLayout(inner)
        self._row.setContentsMargins(2, 2, 2, 2)
        self._row.setSpacing(3)
        self._row.addStretch(1)
        self.setWidget(inner)
        inner.setStyleSheet(STYLE)
        self.buttons: list[QToolButton] = []
        self._entries: tuple[TokenEntry, ...] = ()

    @property
    def entries(self) -> tuple[TokenEntry, ...]:
        return self._entries

    def set_entries(self, entries: list[TokenEntry], step: int | None) -> None:
        """Show `entries` with the tokens of `step` (the step on screen) marked."""
        entries = tuple(entries)
        if entries != self._entries:
            self._rebuild(entries)
        self._mark(step)

    def _rebuild(self, entries: tuple[TokenEntry, ...]) -> None:
        # Buttons are reused: a step adds one token, so only the new one is made.
        while len(self.buttons) > len(entries):
            self.buttons.pop().deleteLater()
        while len(self.buttons) < len(entries):
            button = QToolButton()
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            index = len(self.buttons)
            button.clicked.connect(lambda _checked=False, i=index: self._clicked(i))
            self._row.insertWidget(index, button)
            self.buttons.append(button)
        for button, entry in zip(self.buttons, entries):
            button.setText(self._text(entry))
            button.setToolTip(self._tooltip(entry))
        self._entries = entries

    def _text(self, entry: TokenEntry) -> str:
        if entry.probability is None:
            return entry.text
        return f"{entry.text}\n{entry.probability:.2f}"

    def _tooltip(self, entry: TokenEntry) -> str:
        """Plain text shown literally (token strings come from the model's vocabulary: a leading space,
        a newline or markup in one is part of the token): one line per alternative, probability first."""
        if not entry.generated:
            return plain_tooltip(self.tr("{0}: prompt, fed at step 0").format(entry.text))
        head = self.tr("{0}: chosen at step {1}").format(entry.text, entry.step)
        if entry.probability is None:
            return plain_tooltip(head + "\n" + self.tr("Probabilities are not recorded in a snapshot."))
        lines = [f"{head} (p = {entry.probability:.3f})",
                 self.tr("Top {0} alternatives:").format(len(entry.alternatives))]
        lines += [f"{p:.3f}  {'▶ ' if text == entry.text else ''}{text}" for text, p in entry.alternatives]
        return plain_tooltip("\n".join(lines))

    def _mark(self, step: int | None) -> None:
        for button, entry in zip(self.buttons, self._entries):
            role = role_of(entry, step)
            if button.property("role") != role:
                button.setProperty("role", role)
                button.style().unpolish(button)
                button.style().polish(button)
            if role == "fed":
                self.ensureWidgetVisible(button)  # a long generation scrolls to the step's token

    def roles(self) -> list[str]:
        """Each button's state ('fed', 'chosen', 'later' or ''), for tests and screenshots."""
        return [str(b.property("role") or "") for b in self.buttons]

    def _clicked(self, index: int) -> None:
        if 0 <= index < len(self._entries):
            self.step_clicked.emit(self._entries[index].step)


def role_of(entry: TokenEntry, step: int | None) -> str:
    """'fed' for the tokens step `step` reads, 'chosen' for the one it chose, 'later' after it."""
    if step is None:
        return ""
    if not entry.generated:
        return "fed" if step == 0 else ""
    if entry.step == step:
        return "chosen"
    if entry.step == step - 1:
        return "fed"  # step t reads the token chosen at step t − 1
    return "later" if entry.step > step else ""
