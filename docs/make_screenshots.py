"""Make README's window pictures the way a person gets there: F10 presses, window sizes.

    QT_QPA_PLATFORM=offscreen python docs/make_screenshots.py [OUT_DIR]

Writes gui-stepped-dec.0.self_attn.masked.png (1600×1000, the masked stage reached by
pressing F10 from the first stage), gui-1280x720.png (the same stage on a small screen)
and gui-1920x1080.png (the logits with the next-token prediction) into OUT_DIR (docs/).
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def wait(app, until, timeout_s: float = 60.0) -> None:
    for _ in range(int(timeout_s * 100)):
        app.processEvents()
        if until():
            return
        QTest.qWait(10)
    raise TimeoutError("the window did not get there in time")


def main(out: Path) -> None:
    from tfdebug.core.view import RunInputs
    from tfdebug.ui.shell.window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    settings = QSettings(str(out / ".screenshots.ini"), QSettings.IniFormat)
    window = MainWindow(settings=settings, persist=False)
    window.resize(1600, 1000)
    window.show()
    window.docks["heads"].show()
    window.start(RunInputs("demo", "cpu", {"src": "I love you", "tgt": "我 爱 你"}))
    ctl = window.ctl

    def paused_at(name=None):
        current = ctl.current
        return (current is not None and ctl.stepper.state != "running" and current is ctl.stepper.current
                and (name is None or current.name == name))
    wait(app, paused_at)
    while ctl.current.name != "dec.0.self_attn.masked":  # F10, one stage at a time
        before = len(ctl.stepper.history)
        window.activateWindow()
        QTest.keyClick(window, Qt.Key_F10)
        wait(app, lambda: paused_at() and len(ctl.stepper.history) > before)

    def shot(name: str, w: int, h: int) -> None:
        window.resize(w, h)
        wait(app, lambda: window.width() == w and window.height() == h)
        QTest.qWait(500)  # docks, plots and thumbnails laid out at their final size
        path = out / name
        if not window.grab().save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        print(f"saved {path}")
    shot("gui-stepped-dec.0.self_attn.masked.png", 1600, 1000)
    shot("gui-1280x720.png", 1280, 720)
    window.navigator.filter.setText("")
    ctl.run_to("logits")
    wait(app, lambda: paused_at("logits"))
    shot("gui-1920x1080.png", 1920, 1080)
    window.close()
    (out / ".screenshots.ini").unlink(missing_ok=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
