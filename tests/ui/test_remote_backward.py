"""Debug ▸ Backward over a real `tfdebug serve --model tiny-gpt2` process: attached through File ▸ Connect to
Server…, F5 to the end, Ctrl+Shift+B. The backward runs on the server and its gradients become the served pass: the
window steps them logits first with F10 and Shift+F10, and what it is shown (a heatmap slice, whole-tensor stats)
and what it exports are the gradients of the same pass computed here, equal bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

pytest.importorskip("zmq")
pytest.importorskip("transformers")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.ui.test_backward_window import backward_by_keys  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import press  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.core.stepper import Stepper  # noqa: E402
from tfdebug.sessions.display import LocalDisplay  # noqa: E402
from tfdebug.io.snapshot import open_snapshot  # noqa: E402
from tfdebug.sessions.backward import run_backward  # noqa: E402
from tfdebug.sessions.gradient_session import summary_of  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402

PROMPT = "the cat is on the mat ="


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("exports"), "--input", f"prompt={PROMPT}", model="tiny-gpt2")
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def session_here():
    return DebugSession(load_adapter("tiny-gpt2"), texts={"prompt": PROMPT})


@pytest.fixture(scope="module")
def local(session_here):
    """The same pass's backward, run here in one thread, as the server runs it (tests/remote/served.py): a BLAS
    may split a long sum (the logits' gradient through the 1,299-word unembedding) by its threads, so a gradient's
    bits depend on how many there are."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return run_backward(session_here.adapter, session_here.prepared)
    finally:
        torch.set_num_threads(threads)


def test_ctrl_shift_b_on_a_served_pass_steps_the_server_s_gradients(make_window, qtbot, served, local, session_here,
                                                                   tmp_path):
    tokens = session_here.tokens["prompt"]
    window = make_window()
    window.ctl.close()
    window.show()
    connect_through_the_menu(window, qtbot, served)
    backward = window.actions_by_id["tfdebug.debug.backward"]
    assert not backward.isEnabled()  # paused at the first stage: nothing to differentiate yet
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished" and backward.isEnabled(), timeout=30000)
    backward_by_keys(window, qtbot)  # the dialog's default: the next-token loss over the prompt
    qtbot.waitUntil(lambda: "backward" in window.ctl.title and window.ctl.current is not None, timeout=60000)
    source = window.ctl.source
    assert window.ctl.capabilities.passes_there and not source.capabilities.tensors_here and window.tools.remote.shown() is source
    assert window.ctl.title.startswith("remote: ") and "Backward: loss" in window.message_bar.text()
    assert "peak stated before it ran" in window.message_bar.text()  # the server's statement, said here
    history = [c.name for c in window.ctl.stepper.history]
    assert history == [c.name for c in local.gradients] and window.ctl.current.name == "logits"
    assert "∂L/∂" in window.ctl.current.info.formula
    assert not backward.isEnabled()  # the gradients are not backpropagated again
    # the Backward dock: each token's saliency and the parameters' norms, computed on the server, as here
    qtbot.waitUntil(window.docks["backward"].isVisible, timeout=10000)
    shown, want = window.backward_panel.summary, summary_of(local, {"prompt": tokens})
    assert (shown.tokens, shown.saliency) == (want.tokens, want.saliency) and shown.tokens == tokens
    # parameters' gradients sum over tokens: the server's single thread adds them in another order than this
    # process's threads, so their norms agree to float32's rounding, not bit for bit
    for got, expected in ((shown.layers, want.layers), (shown.largest, want.largest)):
        assert [name for name, _ in got] == [name for name, _ in expected]
        assert [norm for _, norm in got] == pytest.approx([norm for _, norm in expected], rel=1e-6)
    # the plot of the norms per layer and module: the server's rows, as here
    assert [row[:3] for row in shown.modules] == [row[:3] for row in want.modules] and want.modules
    assert [row[3] for row in shown.modules] == pytest.approx([row[3] for row in want.modules], rel=1e-6)
    plot = window.backward_panel.norms
    assert plot.places[1] == ("dec", 0, "") and plot.series["attention"][1] == \
        next(norm for stack, layer, module, norm in shown.modules if (layer, module) == (0, "attention"))

    # the heatmap's slice and the stats of a gradient are the local gradient's, as a local window draws them
    here = LocalDisplay(Stepper.replay(local.gradient_captures()))
    for name in ("logits", "dec.0.self_attn.masked"):
        capture = window.ctl.stepper.history[history.index(name)]
        mine = here.stepper.history[history.index(name)]
        row, col = len(capture.shape) - 2, len(capture.shape) - 1
        shown = source.display.slice_of(capture, row, col, {}, (64, 64))
        want = here.slice_of(mine, row, col, {}, (64, 64))
        assert np.array_equal(shown.values, want.values), name
        assert source.display.stats_of(capture).max == here.stats_of(mine).max
    press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: window.ctl.current.name == history[1], timeout=10000)
    press(window, Qt.Key_F10, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: window.ctl.current.name == "logits", timeout=10000)
    plot.pick(plot.places.index(("dec", 1, "")))  # as a click on layer 1's point: its first gradient, served
    qtbot.waitUntil(lambda: window.ctl.current is not None and window.ctl.current.name == "dec.1.ffn.resid",
                    timeout=10000)

    # every gradient, streamed here as a snapshot, equals the local one bit for bit (planes as their recipes)
    path = tmp_path / "served-backward.safetensors"
    source.export(path)
    with open_snapshot(path) as recording:
        assert recording.backward["loss"] == pytest.approx(local.loss, abs=0)
        for capture in recording.captures:
            want = local.gradient(capture.name)
            want = want.materialize() if hasattr(want, "materialize") else want
            got = recording.tensor(capture)
            got = got.materialize() if hasattr(got, "materialize") else got
            assert torch.equal(got, want), capture.name

    # Run with the typed texts goes back to a live served pass of the model
    press(window, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: "backward" not in window.ctl.title and window.ctl.current is not None, timeout=30000)
    assert window.ctl.current.name == "tok.embed" or window.ctl.stepper.state == "paused"
    window.ctl.close()
