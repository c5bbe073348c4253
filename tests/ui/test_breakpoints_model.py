"""The window's breakpoints as an evented model, without Qt: each change told once with its payload, worked out
from the set itself (a change through a stepper sharing it too); a refused change is told as refused."""

import subprocess
import sys

import pytest

from tfdebug.core.breakpoints import EXACT, FAST, Breakpoint
from tfdebug.core.errors import UnknownStageError
from tfdebug.ui.models.breakpoints import BreakpointsModel


def listen(model: BreakpointsModel) -> list:
    heard = []
    for event in ("added", "removed", "cleared", "mode_changed", "refused"):
        getattr(model, event).connect(lambda payload, event=event: heard.append((event, payload)))
    return heard


def test_each_change_is_told_once_with_its_payload():
    model = BreakpointsModel()
    heard = listen(model)
    softmax, nan = Breakpoint.on_kind("softmax"), Breakpoint.on_nan()
    with model.changing(softmax):
        model.points.add(softmax)
    with model.changing(softmax):
        model.points.add(softmax)  # already there: nothing to tell
    assert heard == [("added", softmax)] and softmax in model
    with model.changing(nan):
        model.points.add(nan)
    with model.changing():
        model.points.set_mode(FAST)
    with model.changing(softmax):
        model.points.remove(softmax)
    assert heard[1:] == [("added", nan), ("mode_changed", FAST), ("removed", softmax)]
    with model.changing(clearing=True):
        model.points.clear()
    assert heard[4:] == [("cleared", frozenset({nan}))] and not model.points and model.points.mode == FAST
    with model.changing(clearing=True):
        model.points.clear()  # nothing to clear: nothing told
    assert len(heard) == 5


def test_a_refused_change_is_told_as_refused_and_a_half_done_one_as_done():
    model = BreakpointsModel()
    heard = listen(model)
    asked = Breakpoint.on_stage("enc.9.attn.scores")
    with pytest.raises(UnknownStageError):
        with model.changing(asked):
            raise UnknownStageError("There is no stage named '{name}' in this model.", name=asked.value)
    assert heard == [("refused", asked)] and not model.points
    kept = Breakpoint.on_kind("softmax")
    with pytest.raises(UnknownStageError):  # the set changed, then the server refused to hear of it
        with model.changing(kept):
            model.points.add(kept)
            raise UnknownStageError("lost", id="x")
    assert heard[1:] == [("added", kept)] and model.points.mode == EXACT


def test_the_model_imports_no_qt():
    code = ("import sys; [sys.modules.__setitem__(m, None) for m in ('PySide6', 'pyqtgraph', 'shiboken6')]; "
            "from tfdebug.ui.models.breakpoints import BreakpointsModel; from tfdebug.core.breakpoints import "
            "Breakpoint; m = BreakpointsModel(); out = []; m.added.connect(out.append); bp = Breakpoint.on_nan(); "
            "cm = m.changing(bp); cm.__enter__(); m.points.add(bp); cm.__exit__(None, None, None); "
            "assert out == [bp]; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
