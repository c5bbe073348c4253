"""Message: what the window tells the user, as data the message bar shows."""

from __future__ import annotations

from dataclasses import dataclass

from tfdebug.ui.i18n.language import shown_text

# What a message says, kept in a form that can be said again in another language; each is a str
# (its text in the language of the moment it was made): a Phrase (a core error or phrase, by id
# and values: i18n.error_phrase), a Said (`said(lambda: self.tr("…").format(…))`), or plain text.
Content = str


@dataclass(frozen=True)
class Message:
    """Something the window tells the user: `level` is error, warning or info; `details` go behind a button.

    `content` is rendered when shown (`text`), so a message on screen follows View ▸ Language.
    `topic` names what the message is about ("run", "unknown-words" …): a later success on
    the same topic clears it.
    """

    level: str
    content: Content
    details: str = ""
    topic: str = ""

    @property
    def text(self) -> str:
        """The sentence in the window's current language."""
        return shown_text(self.content)
