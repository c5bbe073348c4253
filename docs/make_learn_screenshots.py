"""Make the docs' Learn pictures by keys and clicks: the attention playground and the PE curves.

    QT_QPA_PLATFORM=offscreen python docs/make_learn_screenshots.py [OUT_DIR] [--only NAME ...]

Ctrl+Shift+L (Learn ▸ Attention Playground…) opens the playground; a click ticks ÷√d_k and
learn-playground is written. Then the sentence of the notes' animal example is typed into the
demo model's input bar, Return runs it, F10 steps to `src.pos`, and a click on the Explain dock's
"Positional Encoding Curves…" button opens the curves: learn-pe-curves. Each NAME.png comes
with NAME.json, the texts the picture showed (see window_driver.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox

# The tfdebug of this checkout (not whichever one is installed), and window_driver beside this file.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from window_driver import Driver, click, visible_labels, wait  # noqa: E402

PICTURES = ("learn-playground", "learn-pe-curves")
ANIMAL = "The animal didn't cross the street because it was too tired"


def new_window(before: set):
    """The top-level window that appeared since `before` was taken (None until one has)."""
    shown = [w for w in QApplication.topLevelWidgets() if w.isVisible() and w not in before]
    return shown[0] if shown else None


def dialog_texts(dialog) -> dict:
    return {"title": dialog.windowTitle(), "size": [dialog.width(), dialog.height()], "labels": visible_labels(dialog)}


def main(out: Path, only: set[str] | None = None) -> None:
    driver = Driver(out, only)
    try:
        driver.launch()
        if driver.wanted("learn-playground"):
            before = set(QApplication.topLevelWidgets())
            driver.key(Qt.Key_L, Qt.ControlModifier | Qt.ShiftModifier)
            wait(lambda: new_window(before) is not None)
            dialog = new_window(before)
            scale = dialog.findChildren(QCheckBox)[0]  # the playground's one check box: ÷√d_k
            click(scale)
            wait(scale.isChecked)
            QApplication.processEvents()
            driver.save("learn-playground", dialog, dialog_texts(dialog))
            dialog.close()
        if driver.wanted("learn-pe-curves"):
            driver.run("demo", {"src": ANIMAL, "tgt": ""})
            driver.step_to("src.pos")
            before = set(QApplication.topLevelWidgets())
            click(driver.window.explain_panel.pe_button)
            wait(lambda: new_window(before) is not None)
            view = new_window(before)
            view.resize(760, 420)
            QApplication.processEvents()
            driver.save("learn-pe-curves", view, {**dialog_texts(view), "stage": driver.ctl.current.name})
            view.close()
    finally:
        driver.close()


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--only", nargs="+", choices=PICTURES, help="make only these pictures")
    return parser.parse_args(argv)


if __name__ == "__main__":
    args = parse(sys.argv[1:])
    main(args.out, set(args.only) if args.only else None)
