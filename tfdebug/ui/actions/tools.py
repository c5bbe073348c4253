"""What the window's actions and rooms ask of the window's tools, as small Protocols.

The tools live above actions/ (in dialogs/, remote/, shell/ and the feature folders) and import the action
context; typing `WindowTools` by their classes would make an import circle (through type-checking imports
too). Each Protocol here names only what is called through `ctx.tools.<tool>`; the tool classes match them.
"""

from __future__ import annotations

from typing import Any, Protocol

from tfdebug.sessions.crosscheck import Placement


class OpensDialog(Protocol):
    """A tool whose action shows its dialog (Conditions, Decoding, Models, Batch)."""

    def open(self) -> Any:
        """Show the tool's dialog; returns it."""
        ...


class ExportTool(Protocol):
    """File ▸ Export… (features.export.tools.ExportActions)."""

    def export_dialog(self) -> None:
        """Ask what to export and where, then write it."""
        ...


class EditTool(Protocol):
    """Debug ▸ Edit Tensor… (features.edit.dialog.EditTools)."""

    last_edit: Any  # features.edit.dialog.LastEdit: the last edit made, or None

    def open_dialog(self) -> Any:
        """Show the edit dialog; returns it."""
        ...


class ReferenceTool(Protocol):
    """The reference pass the divergence condition reads (features.reference.tools.ReferenceTools)."""

    placement: Placement | None

    def check(self, placement: Placement) -> None:
        """Raise the TfdebugError saying why the pass on screen cannot have a reference in `placement`."""
        ...

    def set_condition_placement(self, placement: Placement | None) -> None:
        """The placement the divergence condition compares with (None: no condition)."""
        ...


class CompareTool(Protocol):
    """File ▸ Compare With… (features.compare.tools.CompareTools) and the reference pass it holds."""

    reference: ReferenceTool

    def open_dialog(self) -> Any:
        """Show the Compare dialog; returns it."""
        ...

    def show_compared(self, comparison: Any, passes: tuple | None, side_a: str, side_b: str,
                      select: str | None = None) -> None:
        """Show a comparison made elsewhere in the Compare dock: its passes here (recordings), or None when they
        stay on the server that compared them."""
        ...


class LearnTool(Protocol):
    """The Learn menu (features.learn.tools.LearnTools)."""

    playground: Any  # the attention playground dialog, once opened

    def show_explain(self) -> None:
        """Show and raise the Explain dock."""
        ...

    def open_playground(self) -> Any:
        """Show the attention playground; returns it."""
        ...

    def open_pe_view(self) -> Any:
        """Show the PE curves of the shown positional stage; returns the view, or None."""
        ...


class RemoteTool(Protocol):
    """A served pass's connection (remote.connection.RemoteTools)."""

    def connect_to(self, address: str, token: str, server_key: str | None = None) -> None:
        """Attach to the server at `address` off the GUI thread."""
        ...

    def attach(self, session: Any, announce: bool = True) -> None:
        """Show `session` (a connected RemoteSession) as the window's pass."""
        ...

    def reconnect(self) -> None:
        """Attach again to the same server."""
        ...

    def export_on_server(self, name: str) -> Any:
        """Write the pass as a snapshot named `name` into the server's export folder; returns the Job or None."""
        ...
