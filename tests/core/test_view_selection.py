"""The view selection as an evented model, without Qt: each field's event fires once, with its payload, and only
when the value changed; a copy hears nothing of the original; events held in a block are told at its end."""

import subprocess
import sys

import pytest

from tfdebug.core.view import ViewSelection

AXES, SHAPE = ("batch", "head", "query", "key"), (1, 4, 3, 3)


def listen(view: ViewSelection) -> list:
    heard = []
    view.axes_changed.connect(lambda row, col: heard.append(("axes", row, col)))
    view.index_changed.connect(lambda name, index: heard.append(("index", name, index)))
    view.pinned_changed.connect(lambda pinned: heard.append(("pinned", pinned)))
    return heard


def test_every_field_tells_its_change_once_with_its_value():
    view = ViewSelection()
    heard = listen(view)
    view.fit(AXES, SHAPE)
    view.fit(AXES, SHAPE)  # the same axes: nothing to tell
    assert heard == [("axes", 2, 3)] and (view.row_axis, view.col_axis) == (2, 3)
    view.set_index("head", 2)
    view.set_index("head", 2)
    assert heard[1:] == [("index", "head", 2)] and view.indices(AXES, SHAPE) == {0: 0, 1: 2}
    view.pin(("head", "key"))
    view.pin(("head", "key"))
    assert heard[2:] == [("pinned", ("head", "key"))] and view.pinned == ("head", "key")
    view.fit(AXES, SHAPE)  # the pinned pair
    assert heard[3:] == [("axes", 1, 3)]
    view.pin(None)
    view.set_axes(2, 3)
    assert heard[4:] == [("pinned", None), ("axes", 2, 3)] and len(heard) == 6


def test_the_fields_change_only_through_the_methods():
    view = ViewSelection({"head": 1}, ("query", "key"))
    with pytest.raises(TypeError):
        view.indices_by_name["head"] = 3  # type: ignore[index]
    with pytest.raises(AttributeError):
        view.row_axis = 1  # type: ignore[misc]
    assert view.indices_by_name == {"head": 1} and view.pinned == ("query", "key")


def test_a_copy_keeps_the_selection_and_none_of_the_subscribers():
    view = ViewSelection()
    heard = listen(view)
    view.fit(AXES, SHAPE)
    view.set_index("head", 3)
    copy = view.copy()
    assert (copy.row_axis, copy.col_axis, dict(copy.indices_by_name)) == (2, 3, {"head": 3})
    copy.set_index("head", 0)
    copy.fit(("batch", "token", "model"), (1, 3, 8))  # what a worker does to a frozen copy
    assert len(heard) == 2 and view.indices_by_name["head"] == 3 and (view.row_axis, view.col_axis) == (2, 3)


def test_changes_held_in_a_block_are_told_when_it_ends():
    view = ViewSelection()
    heard = listen(view)
    with view.held():
        view.fit(AXES, SHAPE)
        view.set_index("batch", 0)
        assert not heard and (view.row_axis, view.col_axis) == (2, 3)  # the fields change at once
    assert heard == [("axes", 2, 3), ("index", "batch", 0)]


def test_the_model_imports_no_qt():
    """Built, changed and heard in a process where Qt cannot be imported (a served pass follows it too)."""
    code = ("import sys; [sys.modules.__setitem__(m, None) for m in ('PySide6', 'pyqtgraph', 'shiboken6')]; "
            "from tfdebug.core.view import ViewSelection; v = ViewSelection(); out = []; "
            "v.axes_changed.connect(lambda r, c: out.append((r, c))); v.fit(('a', 'b'), (2, 2)); "
            "assert out == [(0, 1)]; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
