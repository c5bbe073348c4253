"""Token strings as a label shows them: a newline, a tab or a space you can see.

Tokens come decoded (" apple", "\\n", "<|im_start|>"). Drawn as they are, a newline token is
an empty label and a space token is nothing at all. `shown_token` writes them visibly; special
tokens keep their text, and any other control character is written as an escape
(`tfdebug.core.safe_text`), never sent raw to a painter.
"""

from __future__ import annotations

from functools import lru_cache

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


@lru_cache(maxsize=8)
def shown_tokens(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Every token of a stream as `shown_token` writes it, worked out once per stream: stepping between
    stages relabels the heatmap's axes with the same few streams (a 4k prompt is 4k conversions)."""
    return tuple(shown_token(t) for t in tokens)
