"""Phrases: texts of the Qt-free layers that the window translates, kept as id + values.

A `Phrase` is a `str` (its English text, so the CLI, logs and every `str` use read exactly
as before) that also carries its English template, a stable id and the values filled in.
Values that are themselves phrases (the file a sentence is about, the problem found in it,
a system error's reason, a list of choices) stay structured, so the window can translate
each part: `tfdebug.ui.i18n.language.phrase_text` looks the template up by its id and renders the
values the same way. `python -m tfdebug.ui.i18n.catalog` finds every `Phrase("…", id=…)`.
"""

from __future__ import annotations

import errno
from typing import Iterable


class Phrase(str):
    """English text (the str value) plus `template`, `id` and `params` for translating it.

    `english` replaces the filled-in template as the English text where the exact English
    comes from elsewhere (an OSError's own strerror); the template is what gets translated.
    `context` is the catalogue context the window looks the template up in.
    """

    template: str
    id: str
    params: dict
    context: str

    def __new__(cls, template: str, *, id: str, english: str | None = None, context: str = "phrases",
                **params) -> "Phrase":
        self = super().__new__(cls, template.format(**params) if english is None else english)
        self.template, self.id, self.params, self.context = template, id, params, context
        return self

    def __reduce__(self):  # pickles and copies as its English text with the same structure
        return _rebuild, (self.template, self.id, str(self), self.context, self.params)


def _rebuild(template: str, id: str, english: str, context: str, params: dict) -> Phrase:
    return Phrase(template, id=id, english=english, context=context, **params)


class Choices(str):
    """A list of choices as one phrase, "a, b or c" in English; the window joins `items` in its language."""

    items: tuple[str, ...]

    def __new__(cls, items: Iterable[str]) -> "Choices":
        items = tuple(items)
        text = ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else "".join(items)
        self = super().__new__(cls, text)
        self.items = items
        return self

    def __reduce__(self):
        return Choices, (self.items,)


# Common reasons a file cannot be read or written, by errno. The English shown stays the
# system's own strerror; these templates are what the window translates.
OS_REASONS = {
    errno.ENOENT: Phrase("No such file or directory", id="os.not_found"),
    errno.EACCES: Phrase("Permission denied", id="os.permission"),
    errno.EPERM: Phrase("Operation not permitted", id="os.not_permitted"),
    errno.ENOSPC: Phrase("No space left on device", id="os.no_space"),
    errno.EROFS: Phrase("Read-only file system", id="os.read_only"),
    errno.EISDIR: Phrase("Is a directory", id="os.is_folder"),
    errno.ENOTDIR: Phrase("Not a directory", id="os.not_folder"),
    errno.EEXIST: Phrase("File exists", id="os.exists"),
    errno.ENAMETOOLONG: Phrase("File name too long", id="os.name_too_long"),
    errno.EIO: Phrase("Input/output error", id="os.io"),
    errno.EMFILE: Phrase("Too many open files", id="os.too_many_files"),
    errno.EBUSY: Phrase("Device or resource busy", id="os.busy"),
    errno.ETIMEDOUT: Phrase("Connection timed out", id="os.timed_out"),
}
if hasattr(errno, "EDQUOT"):
    OS_REASONS[errno.EDQUOT] = Phrase("Disk quota exceeded", id="os.quota")


def os_reason(exc: OSError, english: str | None = None) -> str:
    """Why `exc` happened: `english` (default: its strerror, else its text), as a Phrase the window
    translates when the errno is a common one; the raw text otherwise (a reason we do not know stays
    as the system gave it)."""
    raw = english or exc.strerror or str(exc)
    known = OS_REASONS.get(exc.errno) if exc.errno is not None else None
    return Phrase(known.template, id=known.id, english=raw) if known is not None else raw
