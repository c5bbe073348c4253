"""What the window's capture budget keeps when a pass does not fit: the choice, its setting, its words.

The budget (tfdebug.ui.state.capture_budget) says how many bytes a pass may hold; this
says which stages get them (tfdebug.core.budget.KeepPolicy):

- "near" (default): the stages nearest the one on screen and nearest the one the pass has
  reached. A person stepping through a pass looks around where they are; what they left
  far behind is what they can most easily run to again (Restart, Run to Stage).
- "first": the stages that run first, while they fit (what a budget did before this choice).

Pinned kinds are kept before anything else, in every layer; by default every layer's attention
(`tfdebug.core.budget.ATTENTION_KINDS`, as `tfdebug capture` pins): the q/k head splits and
rotations, which are all the recipe planes (scores, scaled, masked, probabilities) read, so
those planes cost nothing and the Heads panel and the Model View have every layer. Pinned stages take at most
`PIN_SHARE` of the budget, so when every layer's probabilities do not fit (a long prompt)
the stages near the user still get the rest; within it the rotations come before the splits
(a later kind first), so every layer's planes stay longest.

The choice is stored in the window's QSettings under `capture/keep` ("near" / "first") and
`capture/pinned` (kinds, comma-separated); unreadable values mean the default. It applies
from the next Run, like the budget.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Signal

from tfdebug.core.budget import ATTENTION_KINDS, FIRST, NEAR, KeepPolicy
from tfdebug.core.stages import KINDS
from tfdebug.ui.i18n.language import kind_title

MODE_KEY, PINNED_KEY = "capture/keep", "capture/pinned"
DEFAULT_PINNED = tuple(kind for kind in KINDS if kind in ATTENTION_KINDS)  # vocabulary order, as parse_pinned
PIN_SHARE = 0.5  # pinned kinds take at most half of the budget: the other half stays for the stages near you


def parse_pinned(value) -> tuple[str, ...]:
    """A stored list of kinds ("softmax,scores") as known kinds in vocabulary order; None is the default."""
    if value is None:
        return DEFAULT_PINNED
    given = {part.strip() for part in str(value)[:1000].split(",")}
    return tuple(kind for kind in KINDS if kind in given)


class KeepChoice(QObject):
    """The keep policy the next pass gets: `mode` ("near" / "first") and `pinned` kinds; `changed` on any change."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.mode, self.pinned = NEAR, DEFAULT_PINNED

    def policy(self) -> KeepPolicy:
        """The core policy of this choice (near the cursor and the pass; pinned kinds within their share)."""
        return KeepPolicy(self.mode, None, self.pinned, PIN_SHARE)

    def set(self, mode: str, pinned) -> None:
        """Choose `mode` and the `pinned` kinds (unknown kinds are left out)."""
        mode = mode if mode in (NEAR, FIRST) else NEAR
        pinned = tuple(kind for kind in KINDS if kind in set(pinned))
        if (mode, pinned) != (self.mode, self.pinned):
            self.mode, self.pinned = mode, pinned
            self.changed.emit()

    def pin(self, kind: str, on: bool) -> None:
        """Keep every stage of `kind` first (or no longer)."""
        self.set(self.mode, set(self.pinned) | {kind} if on else set(self.pinned) - {kind})

    def read(self, settings) -> None:
        """Take the stored choice from `settings` (anything unreadable: the default)."""
        mode = str(settings.value(MODE_KEY, NEAR)).strip().lower()
        self.set(mode, parse_pinned(settings.value(PINNED_KEY)))

    def write(self, settings) -> None:
        settings.setValue(MODE_KEY, self.mode)
        settings.setValue(PINNED_KEY, ",".join(self.pinned))


def describe_keep(mode: str, pinned) -> str:
    """The choice in words: 'the stages nearest where you are and where the pass is; every Softmax first'."""
    where = (QCoreApplication.translate("keeping", "the stages nearest where you are and where the pass is")
             if mode == NEAR else QCoreApplication.translate("keeping", "the stages that run first"))
    if not pinned:
        return where
    if set(pinned) == set(DEFAULT_PINNED):
        return QCoreApplication.translate("keeping", "{where}; every layer's attention first").format(where=where)
    kinds = QCoreApplication.translate("keeping", ", ").join(kind_title(kind) for kind in pinned)
    return QCoreApplication.translate("keeping", "{where}; every {kinds} first").format(where=where, kinds=kinds)
