"""WindowTools: the window's tool objects that registry actions reach through the controller.

Actions in the registry (`ui/actions.py`) are functions of the controller. Those that
open a dialog or write a file need the tool that owns it; the window creates each tool
and sets it here (`ctl.tools.snapshots = SnapshotActions(…)`), so an action finds its
tool by a typed attribute instead of by looking up names on the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from tfdebug.ui.actions.exports import ExportActions
    from tfdebug.ui.actions.snapshots import SnapshotActions
    from tfdebug.ui.dialogs.edit import EditTools
    from tfdebug.ui.panels.compare import CompareTools
    from tfdebug.ui.shell.learn import LearnTools


@dataclass
class WindowTools:
    """Each field is None until the window has created that tool (a bare controller has none)."""

    snapshots: "SnapshotActions | None" = None
    exports: "ExportActions | None" = None
    edit: "EditTools | None" = None
    compare: "CompareTools | None" = None
    learn: "LearnTools | None" = None
    #: opens the condition breakpoint dialog (the navigator owns it)
    conditions: Callable[[], object] | None = None
