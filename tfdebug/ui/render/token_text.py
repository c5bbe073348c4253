"""Token strings as a label shows them: a newline, a tab or a space you can see.

Tokens come decoded (" apple", "\\n", "<|im_start|>"). Drawn as they are, a newline token is
an empty label and a space token is nothing at all. `shown_token` writes them visibly; special
tokens keep their text, and any other control character is written as an escape
(`tfdebug.core.safe_text`), never sent raw to a painter.
"""

from __future__ import annotations

from tfdebug.core.safe_text import terminal_safe

VISIBLE = {"\n": "⏎", "\r": "␍", "\t": "⇥"}
SPACE = "␣"
EMPTY = "∅"


def shown_token(token: str) -> str:
    """`token` with newlines as ⏎, carriage returns as ␍, tabs as ⇥, and its leading and trailing spaces
    as ␣ (inner spaces stay); an empty token is ∅."""
    if not token:
        return EMPTY
    text = "".join(VISIBLE.get(c, c) for c in token)
    stripped = text.strip(" ")
    if stripped != text:
        lead = len(text) - len(text.lstrip(" "))
        trail = len(text) - len(text.rstrip(" "))
        text = SPACE * lead + stripped + SPACE * trail if stripped else SPACE * len(text)
    return terminal_safe(text)
