"""The window's capture budget setting: "auto", "off" or a number of MB, read from QSettings and turned into bytes.

A pass keeps every stage it captures so the user can step back; a real model's pass can
hold more than the machine has. The budget (tfdebug.core.budget) keeps the stages the
keep choice ranks first (tfdebug.ui.state.keeping: by default those nearest the stage on
screen and the stage the pass has reached, attention probabilities of every layer first);
the others are shown while the pass is paused at them and then leave the history. The
setting is one of:

- "auto": half of the memory free on the pass's device when the pass is planned (default);
- "off":  no budget, every stage is kept;
- a number of MB (decimal, as `--max-capture-mb` takes).

It is stored in the window's QSettings under `capture/budget`; `tfdebug gui
--max-capture-mb MB` sets it for one run without storing it. The Capture dock
(tfdebug.ui.panels.capture) shows it; Debug ▸ Capture Budget… (tfdebug.ui.dialogs.capture_budget)
changes it.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from tfdebug.core.budget import default_capture_budget, format_bytes, megabytes

SETTING_KEY = "capture/budget"
AUTO, OFF = "auto", "off"


def parse_setting(value) -> str:
    """A stored setting as "auto", "off" or a number of MB as text; anything unreadable is "auto"."""
    text = str(value).strip().lower() if value is not None else AUTO
    if text in (AUTO, OFF):
        return text
    try:
        mb = float(text)
    except ValueError:
        return AUTO
    return f"{mb:g}" if mb >= 0 and mb == mb and mb != float("inf") else AUTO


def budget_bytes(setting: str, device) -> int | None:
    """The budget in bytes a pass on `device` gets under `setting` (None: no budget).

    "auto" asks the device how much is free, so call it where slow work may run (the
    planning job), not on the GUI thread."""
    if setting == OFF:
        return None
    if setting == AUTO:
        return default_capture_budget(device)
    return megabytes(float(setting))


def describe_setting(setting: str) -> str:
    """The setting in words: 'half of the free memory', 'no budget' or '500.0 MB'."""
    if setting == AUTO:
        return QCoreApplication.translate("capture_budget", "half of the free memory")
    if setting == OFF:
        return QCoreApplication.translate("capture_budget", "no budget")
    return format_bytes(megabytes(float(setting)))
