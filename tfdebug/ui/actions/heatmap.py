"""The heatmap's view actions: Fit (a registry action with its shortcut) and the colour scale's options,
in View ▸ Heatmap and on the heatmap's controls, the options remembered in the settings.

Zooming itself is the heatmap's (wheel, drag, + − and the arrow keys while it has focus:
`tfdebug.ui.widgets.zoom`); Fit is here so that it has a menu entry and a shortcut that work
wherever the focus is.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext

LOG_KEY, PER_ROW_KEY = "heatmap/log_scale", "heatmap/per_row_scale"
# Where the stage kinds with Scale ▸ Log scale are saved: a JSON list of kinds. A setting written before the scale
# was chosen per kind is a bool; it meant the probabilities.
OLD_LOG_KINDS = ("softmax",)


@actions.action("tfdebug.view.fit", QT_TRANSLATE_NOOP("actions", "Fit"), "Ctrl+0",
                QT_TRANSLATE_NOOP("actions", "Show the whole slice in the heatmap (zoom with the wheel or + and −, "
                                             "pan by dragging or with the arrow keys)"), toolbar=False)
def fit(ctx: ActionContext) -> None:
    ctx.window.heatmap_panel.zoom.fit()


def install(window) -> None:
    """Fit on the heatmap's controls and in the View menu, with the scale options (their last choice restored)."""
    panel, settings = window.heatmap_panel, window.settings
    panel.fit_button.setDefaultAction(window.actions_by_id["tfdebug.view.fit"])
    panel.menu.insertAction(panel.log_action, window.actions_by_id["tfdebug.view.fit"])
    panel.menu.insertSeparator(panel.log_action)
    if window.persist:
        panel.set_scale(saved_log_kinds(settings), settings.value(PER_ROW_KEY, False, type=bool))
        ctl = window.ctl
        ctl.colour_scale_changed.connect(lambda: settings.setValue(LOG_KEY, json.dumps(sorted(ctl.log_kinds))))
        panel.per_row_action.toggled.connect(lambda on: settings.setValue(PER_ROW_KEY, on))


def saved_log_kinds(settings: QSettings) -> frozenset[str]:
    """The stage kinds Scale ▸ Log scale was on for, as saved (none when unset or unreadable)."""
    value = settings.value(LOG_KEY)
    if isinstance(value, bool) or isinstance(value, str) and value.lower() in ("true", "false"):
        return frozenset(OLD_LOG_KINDS) if value in (True, "true", "True") else frozenset()
    try:
        kinds = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return frozenset()
    return frozenset(k for k in kinds if isinstance(k, str)) if isinstance(kinds, list) else frozenset()
