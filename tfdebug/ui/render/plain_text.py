"""Text from a model or a file (stage names, token strings, paths) shown as text, never as markup.

Labels take `setTextFormat(Qt.PlainText)`. Tooltips have no format switch: Qt renders one
as rich text when its first line looks like HTML, so a stage called `<img src=…>` would be
drawn as an image. `plain_tooltip` escapes the text into rich text that shows it literally.
"""

from __future__ import annotations

from PySide6.QtGui import Qt


def columns(metrics, n: int) -> int:
    """Pixels of `n` Latin characters in the font of `metrics` (a QFontMetrics). Not `averageCharWidth() * n`:
    with a CJK font that average counts its wide glyphs (12 px against 7), and fields and docks sized by it
    held a 1280-px window at 1,412 px."""
    return metrics.horizontalAdvance("x" * n)


def plain_tooltip(text: str) -> str:
    """`text` as a tooltip that shows every character literally (line breaks kept)."""
    return Qt.convertFromPlainText(text) if text else ""



def one_line(text: str, limit: int) -> str:
    """`text` on one line (every run of spaces and line breaks one space), cut to `limit` characters with "…"
    (a window title that holds a typed prompt of any length)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"
