"""The shown stage as an evented model, without Qt: each field's event with its payload, and one gathered
`followed` event per turn of the host's loop (a list here, drained by hand)."""

import subprocess
import sys

import torch

from tfdebug.core.display import display_slice
from tfdebug.core.stats import tensor_stats
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.ui.models.shown import ShownEvent, ShownModel


def capture(name: str) -> Capture:
    return Capture.of(StageInfo(name, "softmax", "head", None, ("query", "key"), "p"), torch.full((3, 3), 1 / 3))


class Host:
    """A loop whose turns the test runs: `later` queues, `turn` runs what was queued."""

    def __init__(self):
        self.queued = []

    def later(self, fn):
        self.queued.append(fn)

    def turn(self):
        queued, self.queued = self.queued, []
        for fn in queued:
            fn()


def test_fields_emit_their_payload_at_once_and_one_gathered_event_a_turn():
    host, heard = Host(), []
    model = ShownModel(host.later)
    model.stage_changed.connect(lambda c: heard.append(("stage", c)))
    model.slice_changed.connect(lambda s: heard.append(("slice", s)))
    model.stage_shown.connect(lambda e: heard.append(("shown", e)))
    model.followed.connect(lambda e: heard.append(("followed", e)))
    a = capture("a.probs")
    sl = display_slice(a.tensor, 0, 1, {}, (8, 8))
    model.show(4, a)
    model.set_slice(sl)
    assert heard == [("stage", a), ("slice", sl)]  # the heatmap's events, before any turn
    assert model.current is a and model.index == 4 and model.slice is sl and model.stats is None
    assert model.pending and len(host.queued) == 1  # one event due, however many changes
    stats = tensor_stats(a.tensor, kind="softmax")
    model.set_stats(stats)
    host.turn()
    event = ShownEvent(a, sl, stats, frozenset({"stage", "slice", "stats"}))
    assert heard[2:] == [("shown", event), ("followed", event)] and not model.pending
    assert event.new_stage and event.new_slice and event.new_stats


def test_the_moments_of_a_slice_no_longer_shown_change_nothing():
    host, heard = Host(), []
    model = ShownModel(host.later)
    model.followed.connect(heard.append)
    a = capture("a.probs")
    old = display_slice(a.tensor, 0, 1, {}, (8, 8))
    new = display_slice(a.tensor, 1, 0, {}, (8, 8))
    model.show(0, a)
    model.set_slice(old)
    model.set_slice(new)
    host.turn()
    assert model.fill_moments(old, new.stats) is None and model.slice is new and not model.pending
    filled = model.fill_moments(new, old.stats)
    assert filled is model.slice and filled.stats is old.stats and filled.values is new.values
    host.turn()
    assert [e.changed for e in heard] == [frozenset({"stage", "slice"}), frozenset({"slice"})]
    assert heard[1].new_slice and not heard[1].new_stage and not heard[1].new_stats


def test_forgotten_and_disconnected():
    host, heard = Host(), []
    model = ShownModel(host.later)
    model.stage_changed.connect(heard.append)
    model.show(2, capture("a.probs"))
    model.forget()
    assert model.current is None and model.index == -1 and model.slice is None and model.stats is None
    model.disconnect_all()
    model.show(0, capture("b.probs"))
    assert len(heard) == 1


def test_the_model_imports_no_qt():
    """Built, emitted and read in a process where Qt cannot be imported."""
    code = ("import sys; [sys.modules.__setitem__(m, None) for m in ('PySide6', 'pyqtgraph', 'shiboken6')]; "
            "from tfdebug.ui.models.shown import ShownModel; m = ShownModel(lambda fn: fn()); out = []; "
            "m.followed.connect(out.append); m.show(0, None); assert out[0].new_stage; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
