"""Message: what the window tells the user, as data the message bar shows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    """Something the window tells the user: `level` is error, warning or info; `details` go behind a button.

    `topic` names what the message is about ("run", "unknown-words" …): a later success on
    the same topic clears it.
    """

    level: str
    text: str
    details: str = ""
    topic: str = ""
