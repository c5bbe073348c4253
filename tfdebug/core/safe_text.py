"""Making any text from a file or the command line safe to print on a terminal.

A vocabulary token, a file name, a member name inside an archive or an argument can hold
escape sequences (ESC [ … that recolour, retitle or clear the terminal), a newline that
forges a second `tfdebug: …` line, bidirectional overrides that make text display as other
text, or lone surrogates (argv bytes that are not UTF-8) that no strict encoder can write.
`terminal_safe` writes each such character as a visible escape (`\\x1b`, `\\n`, `\\u202e`,
`\\udcff`) and leaves all other text (any script, emoji) as it is.
"""

from __future__ import annotations

import re

# Bidirectional embeddings, overrides and isolates: they make text display as other text.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

# Unicode's Cc (C0, DEL, C1), Zl and Zp, the bidi controls and lone surrogates: one regex scans a
# string at C speed (a manifest holds ~10,000 strings; a per-character Python test took ~100 ms).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(BIDI_CONTROLS)) + "\ud800-\udfff]")


def has_unsafe(text: str) -> bool:
    """True when `text` holds a character a terminal must not receive raw (controls, bidi, lone surrogates)."""
    return _UNSAFE.search(text) is not None


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x100:
        return {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}.get(code, f"\\x{code:02x}")
    return f"\\u{code:04x}"


def terminal_safe(text: object, limit: int | None = None, keep: str = "") -> str:
    """`text` (or its str()) with every unsafe character written as an escape; cut to `limit` characters with '…'.

    `keep` lists control characters left as they are (a multi-line table keeps "\n").
    """
    text = text if isinstance(text, str) else str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    if keep:
        return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return _UNSAFE.sub(_escape, text)
