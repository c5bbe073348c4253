"""The Shape and Explain docks keep their text's layout when given the HTML they show: `setHtml` parses it, lays
the whole text out again and repaints (tfdebug.ui.widgets.steady_browser; issue 54, "the window in two frames")."""

from PySide6.QtWidgets import QApplication

from tests.ui.conftest import wait_paused
from tfdebug.ui.widgets.steady_browser import SteadyBrowser


class Changes:
    def __init__(self, document):
        self.count = 0
        document.contentsChanged.connect(self.changed)

    def changed(self):
        self.count += 1


def test_steady_browser_lays_out_only_new_html(qtbot):
    browser = SteadyBrowser()
    qtbot.addWidget(browser)
    browser.show_html("<b>one</b>")
    changes = Changes(browser.document())
    browser.show_html("<b>one</b>")
    assert changes.count == 0 and browser.toPlainText() == "one"
    browser.show_html("<b>two</b>")
    assert changes.count > 0 and browser.toPlainText() == "two"


def test_the_explain_dock_shown_again_keeps_its_text_laid_out(window, qtbot):
    """View ▸ Explain off and on again (the dock's own toggle, as the menu does it): the dock refreshes for the stage
    it shows, whose text is the same, and lays nothing out again."""
    window.ctl.steps.run_to("enc.0.attn.scores")
    wait_paused(qtbot, window, "enc.0.attn.scores")
    dock = window.docks["explain"]
    dock.show()
    qtbot.waitUntil(dock.isVisible)
    explain = dock.widget()
    text = explain.text
    qtbot.waitUntil(lambda: "enc.0.attn.scores" in text.toPlainText() and explain.checks is not None)  # its checks in
    changes = Changes(text.document())
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: not dock.isVisible())
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(dock.isVisible)
    for _ in range(5):
        QApplication.processEvents()
    assert changes.count == 0 and "enc.0.attn.scores" in text.toPlainText()
