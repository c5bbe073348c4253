"""What an action runs with: the controller, the window, and the window's tools.

Every action in the registry is a function of an ActionContext. The window makes one context,
binds its actions to it and registers each tool it creates there (`tools.snapshots`,
`tools.compare` …), so an action reaches a dialog or a file tool by a typed attribute; the
controller knows nothing of the window's tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tfdebug.ui.actions.tools import CompareTool, EditTool, ExportTool, LearnTool, OpensDialog, RemoteTool

if TYPE_CHECKING:  # only for the annotations: these import this module's users, not it
    from PySide6.QtWidgets import QMainWindow

    from tfdebug.ui.actions.key_repeat import KeyRepeats
    from tfdebug.ui.actions.snapshots import SnapshotActions
    from tfdebug.ui.state.controller import DebugController


@dataclass
class WindowTools:
    """The window's tools, typed by what is asked of them (ui.actions.tools: the tools live in rooms above
    this one). Each is set once while the window is built, before any action can run."""

    snapshots: SnapshotActions | None = None
    exports: ExportTool | None = None
    edit: EditTool | None = None
    compare: CompareTool | None = None
    learn: LearnTool | None = None
    conditions: OpensDialog | None = None
    decoding: OpensDialog | None = None
    remote: RemoteTool | None = None
    models: OpensDialog | None = None
    batch: OpensDialog | None = None


@dataclass
class ActionContext:
    """The controller actions drive, the window they belong to, and its tools."""

    ctl: DebugController
    window: QMainWindow
    tools: WindowTools = field(default_factory=WindowTools)
    keys: KeyRepeats | None = None  # whether the key triggering an action is a held key's repeat (bind sets it)
