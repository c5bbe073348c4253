"""A model tfdebug has never seen, wrapped in a minimal adapter, goes through every layer of the app."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import torch  # noqa: E402

from tests.adapters.toy import ToyAdapter  # noqa: E402
from tests.ui.user_actions import register_model, run_model  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402
from tfdebug.core.recorder import Recorder  # noqa: E402
from tfdebug.core.stepper import FINISHED  # noqa: E402
from tfdebug.io.recording import Recording  # noqa: E402
from tfdebug.io.snapshot import open_snapshot, save_snapshot  # noqa: E402

STAGES = ["tok.0.attn.scores", "tok.0.attn.probs", "tok.0.attn.context"]


def test_recorder_and_stepper_see_the_three_taps():
    adapter = ToyAdapter()
    prepared = adapter.prepare({"text": "abc"})
    with torch.no_grad(), Recorder(adapter.module) as rec:
        out = adapter.forward(prepared)
    assert rec.names() == STAGES
    assert rec["tok.0.attn.probs"].shape == (1, 3, 3) and out.shape == (1, 3, 8)

    session = DebugSession(adapter, {"text": "abc"})
    stepper = session.stepper
    stepper.start()
    stepper.wait()
    assert stepper.current.name == STAGES[0]
    stepper.step()
    stepper.wait()
    stepper.replace(torch.eye(3)[None])  # every token attends only to itself
    stepper.continue_()
    assert stepper.wait() == FINISHED
    x = adapter.module.embed(prepared.args[0])
    assert torch.allclose(stepper.output, x)
    session.close()


def test_a_snapshot_of_the_toy_opens_and_replays(tmp_path):
    session = DebugSession(ToyAdapter(), {"text": "hey"})
    path = tmp_path / "toy.safetensors"
    save_snapshot(Recording.from_session(session), path)
    with open_snapshot(path) as recording:
        assert recording.tokens == {"text": ["h", "e", "y"]}
        assert recording.model_config == {"dim": 8}
        replay = recording.stepper()
        replay.run_to(STAGES[-1])
        assert replay.current.name == STAGES[-1] and replay.current.tensor.shape == (1, 3, 8)


def load_toy(spec, device, dtype):
    """The registry's loader for these tests' toys: `toy`, `verified-toy`, `verified-toy+OFFSET`."""
    return ToyAdapter() if spec == "toy" else VerifiedToy(offset=float(spec.partition("+")[2] or 0))


def test_the_window_shows_the_toy_in_one_column_with_its_one_field(make_window, qtbot, monkeypatch):
    register_model(monkeypatch, "toy", "tests.adapters.test_toy_model:load_toy")
    window = make_window()
    run_model(qtbot, window, "toy", {"text": "hello"}, STAGES[0])
    assert list(window.input_bar.fields) == ["text"]
    assert window.input_bar.field("text").text() == "hello"
    assert len(window.architecture_map.columns) == 1
    assert [p.label for p in window.architecture_map.parts] == ["Self-attention"]
    assert window.ctl.layout.group_path(STAGES[1]) == ["Toy layer 0", "Self-attention"]
    assert window.ctl.axes.labels(1) == list("hello")  # the query axis reads the characters
    window.ctl.shutdown()


class VerifiedToy(ToyAdapter):
    """The toy with a check against itself run without taps (what HF/SDPA adapters do for real)."""

    def __init__(self, offset: float = 0.0):
        super().__init__()
        self.offset = offset

    def verify(self, prepared, output):
        from tfdebug.adapters.base import Verification

        plain = self.module(*prepared.args) + self.offset
        return Verification(float((plain - output).abs().max()), 1e-5)


def test_the_window_says_a_verified_pass_is_verified_and_a_mismatch_is_an_error(make_window, qtbot, monkeypatch):
    for spec in ("verified-toy", "verified-toy+0.5"):
        register_model(monkeypatch, spec, "tests.adapters.test_toy_model:load_toy")
    window = make_window()
    run_model(qtbot, window, "verified-toy", {"text": "hey"}, STAGES[0])
    window.actions_by_id["tfdebug.step.continue"].trigger()
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None)
    assert window.ctl.loader.verification.ok
    qtbot.waitUntil(lambda: "verified" in window.status_model.text())

    run_model(qtbot, window, "verified-toy+0.5", {"text": "hey"}, STAGES[0])
    window.actions_by_id["tfdebug.step.continue"].trigger()
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None)
    assert not window.ctl.loader.verification.ok
    assert window.message_bar.current.level == "error" and "differs" in window.message_bar.text()
    window.ctl.shutdown()
