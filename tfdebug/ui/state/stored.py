"""Settings the window stores as JSON text in its QSettings, read back with their size and nesting checked."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings

from tfdebug.core.files import nesting_depth

MAX_SETTING_CHARS = 4 << 20  # the recent inputs: a few long texts
MAX_SETTING_NESTING = 8  # the settings tfdebug writes nest two or three levels


def json_setting(settings: QSettings, key: str, dropped: list[str] | None = None):
    """A setting stored as JSON text, or None when it is missing or damaged (not text, not JSON, nested
    deeper than any setting tfdebug writes). A damaged one is removed and its key added to `dropped`."""
    value = settings.value(key)
    if value is None:
        return None
    try:
        doc = json.loads(value) if isinstance(value, str) and len(value) <= MAX_SETTING_CHARS else None
    except (ValueError, RecursionError):
        doc = None
    if doc is None or nesting_depth(doc, MAX_SETTING_NESTING + 1) > MAX_SETTING_NESTING:
        if dropped is not None:
            settings.remove(key)
            dropped.append(key)
        return None
    return doc
