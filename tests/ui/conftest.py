"""Fixtures for GUI tests: headless Qt, settings in a temporary folder, a window paused at the first stage."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QObject, QSettings  # noqa: E402

from tfdebug.models.loader import load_model  # noqa: E402

SRC, TGT = "I love you", "我 爱 你"


@pytest.fixture(autouse=True)
def temporary_settings(tmp_path):
    """Every QSettings a test makes (also the default one) lives under tmp_path."""
    for fmt in (QSettings.NativeFormat, QSettings.IniFormat):
        QSettings.setPath(fmt, QSettings.UserScope, str(tmp_path / "settings"))
    return tmp_path / "settings"


@pytest.fixture(autouse=True)
def application_state_restored(qapp):
    """What a test changes application-wide (the font a CJK test applies, the style, the palette)
    is put back after it, so no test's layout depends on which tests ran before it."""
    font, palette, style = qapp.font(), qapp.palette(), qapp.style().name()
    yield
    if qapp.font() != font:
        qapp.setFont(font)
    if qapp.palette() != palette:
        qapp.setPalette(palette)
    if qapp.style().name() != style:
        qapp.setStyle(style)


@pytest.fixture(autouse=True)
def english_at_the_end():
    """Every UI test ends in English (tests read English texts), the LanguageChange delivered while
    the test's window still exists: one left pending for a closed window crashed the interpreter's
    exit (about 4 runs in 5 of a file whose last test switched to Chinese)."""
    yield
    from PySide6.QtWidgets import QApplication

    from tfdebug.ui.i18n import language as i18n

    if i18n.current_language() != "en":
        i18n.set_language("en")
        QApplication.processEvents()


@pytest.fixture(scope="session")
def loaded():
    return load_model("random", device="cpu")


@pytest.fixture()
def settings(tmp_path):
    return QSettings(str(tmp_path / "tfdebug.ini"), QSettings.IniFormat)


def wait_paused(qtbot, window, name=None, timeout=60000):
    """Wait until the window shows a stage (called `name`) and the worker is not running.
    The bound is generous: it catches a window that never gets there, not a slow machine."""
    def ready():
        ctl = window.ctl
        current = ctl.current
        assert current is not None and ctl.stepper.state != "running"
        assert current is ctl.stepper.current  # the UI has caught up with the worker
        if name is not None:
            assert current.name == name
        assert window.heatmap_panel.slice is not None or current.tensor is None
        assert not window.ctl.shown.model.pending  # the other panels have followed the stage
    qtbot.waitUntil(ready, timeout=timeout)


@pytest.fixture()
def make_window(qtbot, settings):
    from tfdebug.ui.shell.window import MainWindow

    def make(settings_=None):
        window = MainWindow(settings=settings_ or settings)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        return window
    return make


@pytest.fixture()
def window(make_window, qtbot):
    """A window on the random model, paused at the first stage."""
    from PySide6.QtCore import Qt

    from tests.ui.user_actions import press

    window = make_window()
    window.input_bar.set_values("random", "cpu", {"src": SRC, "tgt": TGT})
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run, through the loading path a person takes
    wait_paused(qtbot, window, "src.embed", timeout=30000)
    yield window
    window.ctl.close()


class EventCount(QObject):
    """Counts the events of type `kind` (a QEvent.Type) that `widget` receives, from now on."""

    def __init__(self, widget, kind):
        super().__init__()
        self.kind, self.count = kind, 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == self.kind:
            self.count += 1
        return False
