"""What an action runs with: the controller, the window, and the window's tools.

Every action in the registry is a function of an ActionContext. The window makes one context,
binds its actions to it and registers each tool it creates there (`tools.snapshots`,
`tools.compare` …), so an action reaches a dialog or a file tool by a typed attribute; the
controller knows nothing of the window's tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotations: the tools import this module's users, not it
    from PySide6.QtWidgets import QMainWindow

    from tfdebug.ui.features.compare.tools import CompareTools
    from tfdebug.ui.actions.key_repeat import KeyRepeats
    from tfdebug.ui.features.export.tools import ExportActions
    from tfdebug.ui.actions.snapshots import SnapshotActions
    from tfdebug.ui.dialogs.batch import BatchTools
    from tfdebug.ui.dialogs.conditions import ConditionTools
    from tfdebug.ui.dialogs.decoding import DecodingTools
    from tfdebug.ui.features.edit.dialog import EditTools
    from tfdebug.ui.dialogs.models import ModelTools
    from tfdebug.ui.remote.connection import RemoteTools
    from tfdebug.ui.shell.learn import LearnTools
    from tfdebug.ui.state.controller import DebugController


@dataclass
class WindowTools:
    """The window's tools. Each is set once while the window is built, before any action can run."""

    snapshots: SnapshotActions | None = None
    exports: ExportActions | None = None
    edit: EditTools | None = None
    compare: CompareTools | None = None
    learn: LearnTools | None = None
    conditions: ConditionTools | None = None
    decoding: DecodingTools | None = None
    remote: RemoteTools | None = None
    models: ModelTools | None = None
    batch: BatchTools | None = None


@dataclass
class ActionContext:
    """The controller actions drive, the window they belong to, and its tools."""

    ctl: DebugController
    window: QMainWindow
    tools: WindowTools = field(default_factory=WindowTools)
    keys: KeyRepeats | None = None  # whether the key triggering an action is a held key's repeat (bind sets it)
