"""The Learn menu's tools: the Explain dock, the attention playground and the PE curves.

Both items are registry actions (`tfdebug.learn.explain` F1, `tfdebug.learn.playground`
Ctrl+Shift+L) like every other menu item; they reach the window's Explain dock and its one
playground dialog through the action context's `tools.learn` (LearnTools).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.features.learn.pe_view import PositionalEncodingView
from tfdebug.ui.features.learn.playground import PlaygroundDialog
from tfdebug.ui.i18n.language import said
from tfdebug.ui.panels.explain import ExplainPanel
from tfdebug.ui.state.shown import cannot


class LearnTools:
    """What the Learn actions open: the Explain dock, and the playground (one per window, kept when
    closed so its edits stay; None until first opened)."""

    def __init__(self, window):
        self.window = window
        self.playground: PlaygroundDialog | None = None
        self.pe_view: PositionalEncodingView | None = None

    def show_explain(self) -> None:
        dock = self.window.docks["explain"]
        dock.show()
        dock.raise_()

    def open_pe_view(self) -> None:
        """Open the PE curves of the shown positional stage's table (`pe_view` once drawn), or say it has not run
        yet. The table's values are read by the pass's display on the display worker, where its tensor is: here,
        or on the server of a served pass."""
        ctl = self.window.ctl
        table = self.window.explain_panel.pe_table()
        source = ctl.source
        if table is None or source is None or len(table.shape) < 2:
            ctl.fail(said(lambda: QCoreApplication.translate(
                "ExplainPanel", "The positional-encoding table has not been computed in this pass yet.")))
            return
        display, shape = source.display, tuple(table.shape)
        row, col = len(shape) - 2, len(shape) - 1  # (positions, d_model), after any leading batch axis
        fixed = {axis: 0 for axis in range(row)}

        def values():
            return display.slice_of(table, row, col, fixed, (shape[row], shape[col])).values  # whole: no pooling

        def failed(exc: Exception) -> None:
            ctl.fail(cannot("Cannot show this slice of {name}: {why}", table, exc))
        ctl.display.submit("pe", values, lambda read: self._show_pe(read, table.name), failed)

    def _show_pe(self, table, name: str) -> None:
        view = PositionalEncodingView(table, name, self.window)
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        view.show()
        self.pe_view = view

    def open_playground(self) -> PlaygroundDialog:
        if self.playground is None:
            self.playground = PlaygroundDialog(self.window)
        self.playground.show()
        self.playground.raise_()
        return self.playground


@actions.action("tfdebug.learn.explain", QT_TRANSLATE_NOOP("actions", "Explain"), "F1",
                QT_TRANSLATE_NOOP("actions", "Show the Explain panel: what this stage does and what to look for"),
                toolbar=False,
                menu="learn", group=0, order=0)
def explain(ctx: ActionContext) -> None:
    ctx.tools.learn.show_explain()


@actions.action("tfdebug.learn.playground", QT_TRANSLATE_NOOP("actions", "Attention Playground…"), "Ctrl+Shift+L",
                QT_TRANSLATE_NOOP("actions", "The notes' toy attention example as tables you can edit"), toolbar=False,
                menu="learn", group=0, order=10)
def playground(ctx: ActionContext) -> None:
    ctx.tools.learn.open_playground()


def install(window, explain: ExplainPanel) -> LearnTools:
    """The Learn tools of `window`, which the shell keeps as `window.tools.learn` (the Learn menu is declared with
    its actions); the Explain dock's `explain` panel asks them for the PE curves."""
    tools = LearnTools(window)
    explain.pe_curves_requested.connect(tools.open_pe_view)
    return tools
