"""The window's start to its first painted stage, timed in a fresh process (offscreen Qt).

`python -m tfdebug.ui.first_paint MODEL T0` starts the window the way `tfdebug gui`
does (tfdebug.ui.app: the application, its language, the main window shown on the CPU alone,
torch imported behind it by `start_behind`, then Run on the model's first preset) and prints one
JSON line: seconds since `T0` (the parent's `time.time()` just before it started this process)
when the interpreter ran this module, when PySide6, pyqtgraph and the window's modules were
imported, when the window was shown (torch not imported yet: `torch_at_show` says whether it
was), when torch had been imported behind it, and when the heatmap first painted a stage's slice.
Used by `tfdebug bench --section startup` (tfdebug.bench.startup).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time


def main(argv: list[str]) -> int:
    model, t0 = argv[0], float(argv[1])
    marks = {"interpreter": time.time() - t0}
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    marks["pyside6"] = time.time() - t0
    import pyqtgraph as pg

    marks["pyqtgraph"] = time.time() - t0
    from tfdebug.core.view import RunInputs
    from tfdebug.ui.app import _application, start_behind
    from tfdebug.ui.i18n import language as i18n
    from tfdebug.ui.shell.window import MainWindow

    marks["tfdebug_ui"] = time.time() - t0
    app: QApplication = _application()
    i18n.set_language("en")
    image_paint = pg.ImageItem.paint
    window: MainWindow | None = None

    def paint(item, *args):
        result = image_paint(item, *args)
        heatmap = window.heatmap_panel if window is not None else None
        if heatmap is not None and item is heatmap.image and heatmap.slice is not None and "painted" not in marks:
            marks["painted"] = time.time() - t0
            QTimer.singleShot(0, app.quit)
        return result

    pg.ImageItem.paint = paint
    folder = tempfile.mkdtemp(prefix="tfdebug-first-paint-")  # no settings of the user's are read
    settings = QSettings(os.path.join(folder, "bench.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, persist=False, models=[model], devices=["cpu"])
    window.resize(1600, 1000)
    window.show()
    marks["window_shown"] = time.time() - t0
    torch_at_show = "torch" in sys.modules

    def begin(devices: list[str]) -> None:
        marks["torch"] = time.time() - t0
        window.start(RunInputs(model, "cpu", {}))

    start_behind(window, begin)
    QTimer.singleShot(120_000, app.quit)
    app.exec()
    window.ctl.close()
    window.close()
    shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps({**{k: round(v, 3) for k, v in marks.items()}, "torch_at_show": torch_at_show}))
    return 0 if "painted" in marks else 1


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.exit(main(sys.argv[1:]))
