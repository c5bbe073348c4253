"""The Preset box shows one line per entry (issue 52, item 4): a multi-line or long recent input is cut to a line,
whole in the entry's tooltip."""

from PySide6.QtCore import Qt

from tests.ui.user_actions import tooltip_as_read

LONG = {"src": "I love you\nand the cat\nis under the table " + "very " * 40, "tgt": "我"}


def test_each_preset_entry_is_one_line(window, qtbot):
    bar = window.input_bar
    bar.set_recent([LONG])
    texts = [bar.preset.itemText(i) for i in range(bar.preset.count()) if bar.preset.itemData(i) is not None]
    assert texts and all("\n" not in t and len(t) <= 120 for t in texts), texts
    recent = next(i for i in range(bar.preset.count()) if bar.preset.itemData(i) == LONG)
    assert bar.preset.itemText(recent).startswith("recent: I love you and the cat") and bar.preset.itemText(recent).endswith("…")
    read = " ".join(tooltip_as_read(bar.preset.itemData(recent, Qt.ToolTipRole)).split())
    assert read == " ".join("  |  ".join(LONG.values()).split())  # the whole text on hover
