"""Make README's Learn pictures: the attention playground (scaled) and the PE curves of the demo model.

    QT_QPA_PLATFORM=offscreen python docs/make_learn_screenshots.py [OUT_DIR]

The PE curves are opened the way a person does: Step (F10) to `src.pos`, then the Explain dock's
"Positional Encoding Curves…" button. Writes learn-playground.png and learn-pe-curves.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_screenshots import wait  # noqa: E402


def main(out: Path) -> None:
    from tfdebug.core.view import RunInputs
    from tfdebug.ui.dialogs.playground import open_playground
    from tfdebug.ui.shell.window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(settings=QSettings(str(out / ".screenshots.ini"), QSettings.IniFormat), persist=False)
    window.show()
    dialog = open_playground(window)
    dialog.scale.setChecked(True)
    app.processEvents()
    dialog.grab().save(str(out / "learn-playground.png"))
    dialog.close()

    ctl = window.ctl
    window.start(RunInputs("demo", "cpu", {"src": "The animal didn't cross the street because it was too tired",
                                           "tgt": ""}))
    wait(app, lambda: ctl.current is not None and ctl.current.name == "src.embed")
    for name in ("src.pe", "src.pos"):
        window.actions_by_id["tfdebug.step.next"].trigger()  # Step (F10)
        wait(app, lambda: ctl.current is not None and ctl.current.name == name)
    panel = window.explain_panel
    panel.pe_button.click()
    view = panel.pe_view
    view.resize(760, 420)
    app.processEvents()
    view.grab().save(str(out / "learn-pe-curves.png"))
    window.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
