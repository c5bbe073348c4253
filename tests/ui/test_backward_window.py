"""Debug ▸ Backward driven by keys through the real loading path: a pretrained model typed into the input bar,
F5 to the end, Ctrl+Shift+B, F10 and Shift+F10 through the gradients (logits first)."""

from __future__ import annotations

import pytest
import torch
from PySide6.QtCore import Qt

from tests.ui.user_actions import press, run_model

pytest.importorskip("transformers")


@pytest.fixture()
def finished(make_window, qtbot):
    window = make_window()
    run_model(qtbot, window, "tiny-gpt2", {"prompt": "the cat is on the mat ="}, first="tok.embed")
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    qtbot.waitUntil(lambda: not window.ctl.display.busy(), timeout=30000)
    yield window
    window.ctl.close()


def backward_by_keys(window, qtbot, keys=()):
    """Ctrl+Shift+B, then in the objective dialog each of `keys` ((key, modifier) or text to type), then Return."""
    from PySide6.QtTest import QTest

    # As a person sees Debug ▸ Backward enabled: the stepper says "finished" on its thread before the window has
    # heard it (and enabled the action), and a shortcut pressed in between does nothing (seen on a loaded machine).
    qtbot.waitUntil(window.actions_by_id["tfdebug.debug.backward"].isEnabled, timeout=10000)
    press(window, Qt.Key_B, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: window.dialogs.get("backward") is not None
                    and window.dialogs["backward"].isVisible(), timeout=10000)
    dialog = window.dialogs["backward"]
    dialog.activateWindow()
    qtbot.waitUntil(lambda: dialog.focusWidget() is not None, timeout=5000)
    for key in (*keys, (Qt.Key_Return, Qt.NoModifier)):
        focused = dialog.focusWidget() or dialog
        if isinstance(key, str):
            QTest.keyClicks(focused, key)
        else:
            QTest.keyClick(focused, *key)
    return dialog


def test_ctrl_shift_b_steps_through_every_gradient_logits_first(finished, qtbot):
    window = finished
    forward = [c.name for c in window.ctl.stepper.history]
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    qtbot.waitUntil(lambda: window.ctl.current is not None, timeout=10000)
    history = window.ctl.stepper.history
    assert [c.name for c in history][0] == "logits" and sorted(c.name for c in history) == sorted(forward)
    assert window.ctl.current.name == "logits"
    assert "∂L/∂" in window.ctl.current.info.formula
    # the logits' gradient of the mean next-token cross-entropy: (softmax − one-hot) / predicted positions
    grad = window.ctl.current.tensor[0]
    assert torch.allclose(grad.sum(-1), torch.zeros(grad.shape[0]), atol=1e-6)
    # the Heads dock reads no next tokens out of a gradient: it says so, and its prediction table stays hidden
    heads = window.heads_panel
    qtbot.waitUntil(lambda: "no next-token reading" in heads.note.text(), timeout=10000)
    assert not heads.prediction.isVisible() and not heads.prediction.applies()
    press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: window.ctl.current.name == history[1].name, timeout=10000)
    assert history[1].name == "dec.norm"
    press(window, Qt.Key_F10, Qt.ShiftModifier)  # Step Back
    qtbot.waitUntil(lambda: window.ctl.current.name == "logits", timeout=10000)
    assert "Backward: loss" in window.message_bar.text()


def test_a_backward_s_attention_planes_show_their_gradient_recipes(finished, qtbot):
    """A plane's gradient in the backward replay is a recipe (nothing whole kept); the heatmap and the Heads dock
    draw it as they draw a forward plane, and its values are those of the whole gradient."""
    from tfdebug.core.gradient_planes import GradientPlane

    window = finished
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    qtbot.waitUntil(lambda: window.ctl.current is not None, timeout=10000)
    names = [c.name for c in window.ctl.stepper.history]
    target = names.index("dec.0.self_attn.masked")
    for _ in range(target):
        press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: window.ctl.current.name == "dec.0.self_attn.masked", timeout=20000)
    plane = window.ctl.current.tensor
    assert isinstance(plane, GradientPlane)
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled(), timeout=20000)
    assert len(window.heads_panel.views) == plane.shape[1]
    assert torch.equal(plane[0, 1], plane.materialize()[0, 1])


def test_backward_is_grey_until_the_pass_has_run_to_its_end(make_window, qtbot):
    window = make_window()
    run_model(qtbot, window, "tiny-gpt2", {"prompt": "the cat is on the mat ="}, first="tok.embed")
    assert not window.actions_by_id["tfdebug.debug.backward"].isEnabled()
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.actions_by_id["tfdebug.debug.backward"].isEnabled(), timeout=30000)
    window.ctl.close()


def test_an_inf_breakpoint_stops_the_backward_at_the_first_stage_whose_gradient_overflowed(make_window, qtbot,
                                                                                          tmp_path):
    """The float16 GPT-2 of tests/sessions/test_backward.py (its forward finite, its backward past 65,504): F5
    in its backward section, with a ±Inf breakpoint, stops at dec.1.ffn.resid; the status bar named it."""
    from PySide6.QtWidgets import QApplication

    from tests.sessions.test_backward import _overflowing_backward
    from tests.ui.conftest import wait_paused
    from tfdebug.core.breakpoints import Breakpoint

    folder = _overflowing_backward(tmp_path / "overflow")
    window = make_window()
    bar = window.input_bar
    bar.set_values(f"hf:{folder}", "cpu", {"prompt": "I love you the cat sat on the mat"})
    bar.dtype.setCurrentIndex(bar.dtype.findText("float16"))
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, "tok.embed", timeout=60000)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    assert "dec.1.ffn.resid" in window.message_bar.text()
    window.ctl.breakpoints.set(Breakpoint.on_inf(), True)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.current is not None and window.ctl.current.name == "dec.1.ffn.resid",
                    timeout=30000)
    assert bool(torch.isinf(window.ctl.current.tensor).any())
    window.ctl.close()


def test_a_saved_backward_pass_reopens_as_a_replay_stepped_logits_first(make_window, qtbot, tmp_path):
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.io.snapshot import save_snapshot
    from tfdebug.sessions.backward import run_backward
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter("tiny-gpt2")
    session = DebugSession(adapter, {"prompt": "the cat is on the mat ="}, planning="lazy")
    result = run_backward(adapter, session.prepared)
    path = tmp_path / "grad.safetensors"
    save_snapshot(result.recording(session), path)
    window = make_window()
    window.open_snapshot(str(path))
    qtbot.waitUntil(lambda: window.ctl.current is not None and window.ctl.title.startswith("backward"),
                    timeout=30000)
    assert window.ctl.current.name == "logits"
    assert torch.equal(window.ctl.current.tensor, result.gradient("logits"))
    assert "A backward pass" in window.message_bar.text()
    # the Overview is handed the parameters' norm per layer from the manifest's summary, at each layer's first gradient
    norms = dict(window.overview.parameter_norms[1])
    assert norms["dec.0.ffn.resid"] == pytest.approx(result.layer_norms()["layer 0"], rel=1e-6)
    press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: window.ctl.current.name == "dec.norm", timeout=10000)
    window.ctl.close()


def test_the_backward_dock_draws_each_token_s_saliency_and_the_parameters_norms(finished, qtbot):
    """Ctrl+Shift+B opens the Backward dock: ‖gradient × embedding‖₂ over each token's label (the strongest token
    darkest), the parameters' gradient norm per layer and the largest parameter gradients, as computed here."""
    from tfdebug.sessions.backward import run_backward
    from tfdebug.sessions.gradient_session import summary_of

    window = finished
    session = window.ctl.source.session
    want = summary_of(run_backward(session.adapter, session.prepared), session.tokens)
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    dock, panel = window.docks["backward"], window.backward_panel
    qtbot.waitUntil(dock.isVisible, timeout=10000)
    assert panel.summary == want and len(want.saliency) == len(session.tokens["prompt"])
    tokens = panel.tokens
    labels = [tokens.horizontalHeaderItem(i).text() for i in range(tokens.columnCount())]
    assert labels == want.tokens == session.tokens["prompt"]
    norms = [norm for _, norm in want.saliency]
    strongest = norms.index(max(norms))
    alphas = [tokens.item(0, i).background().color().alpha() for i in range(tokens.columnCount())]
    assert alphas.index(max(alphas)) == strongest and tokens.item(0, strongest).text() == f"{max(norms):.3g}"
    layers = panel.layers
    assert [layers.item(r, 0).text() for r in range(layers.rowCount())] == [name for name, _ in want.layers]
    assert "layer 0" in [name for name, _ in want.layers] and "█" in layers.item(0, 1).text()
    assert panel.largest.item(0, 0).text() == want.largest[0][0]
    assert "gradient × embedding" in panel.note.text()


def test_a_logit_difference_chosen_by_keys_backpropagates_that_objective(finished, qtbot):
    """Ctrl+Shift+B, the third objective (↓ ↓), position 3, 'mat' (not a token: the note says so and the dialog
    stays open), then 'cat' against 'the': the gradients are run_backward's of the same Objective, and the next dialog
    opens with that choice."""
    from PySide6.QtTest import QTest

    from tfdebug.sessions.backward import Objective, run_backward

    window = finished
    session = window.ctl.source.session
    vocabulary = session.adapter.vocabulary()
    objective = Objective("logit_diff", 3, vocabulary.index("cat"), vocabulary.index("the"))
    want = run_backward(session.adapter, session.prepared, objective)
    a_all = (Qt.Key_A, Qt.ControlModifier)
    tab = (Qt.Key_Tab, Qt.NoModifier)
    dialog = backward_by_keys(window, qtbot, [(Qt.Key_Down, Qt.NoModifier), (Qt.Key_Down, Qt.NoModifier), tab,
                                              a_all, "3", tab, "mat", tab, "the"])
    assert dialog.isVisible() and "'mat' is not a token" in dialog.note.text()
    assert not window.ctl.title.startswith("backward")
    dialog.target.setFocus()
    QTest.keyClick(dialog.target, Qt.Key_A, Qt.ControlModifier)
    QTest.keyClicks(dialog.target, "cat")
    QTest.keyClick(dialog.target, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    qtbot.waitUntil(lambda: window.ctl.current is not None, timeout=10000)
    assert f"{want.loss:.5g}" in window.message_bar.text()
    for capture in window.ctl.stepper.history:
        got, expected = capture.tensor, want.gradient(capture.name)
        if hasattr(expected, "materialize"):
            got, expected = got.materialize(), expected.materialize()
        assert torch.equal(got, expected), capture.name
    assert "logit(#" in window.ctl.current.info.formula
    # the choice is remembered for the window's session: the next dialog opens with it
    from tfdebug.ui.features.backward.objective_dialog import ObjectiveDialog

    again = ObjectiveDialog(len(session.tokens["prompt"]), len(vocabulary), lambda text: 0, window.backward_panel.choice)
    assert (again.kind.currentData(), again.position.value(), again.target.text(), again.contrast.text()) == \
        ("logit_diff", 3, "cat", "the")
    again.deleteLater()


def test_cancel_runs_nothing_and_the_last_position_has_no_loss(finished, qtbot):
    window = finished
    dialog = backward_by_keys(window, qtbot, [(Qt.Key_Down, Qt.NoModifier)])  # the loss at the last position
    assert dialog.isVisible() and "nothing follows it" in dialog.note.text()
    _escape(dialog)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert not window.ctl.title.startswith("backward") and window.ctl.stepper.state == "finished"


def _escape(dialog):
    from PySide6.QtTest import QTest

    QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key_Escape)


def test_the_sum_of_the_selected_stage_by_keys_backpropagates_that_sum(finished, qtbot):
    """The stage selected in the Stages tree (dec.0.ffn.resid) is the dialog's stage; ↓ ↓ ↓ picks its sum: the
    gradients are run_backward's of Objective("stage_sum", stage=…), the summed stage first."""
    from tests.ui.user_actions import click_stage
    from tfdebug.sessions.backward import Objective, run_backward

    window = finished
    session = window.ctl.source.session
    want = run_backward(session.adapter, session.prepared, Objective("stage_sum", stage="dec.0.ffn.resid"))
    click_stage(window, qtbot, "dec.0.ffn.resid")
    qtbot.waitUntil(lambda: window.ctl.selected_stage == "dec.0.ffn.resid", timeout=10000)
    backward_by_keys(window, qtbot, [(Qt.Key_Down, Qt.NoModifier)] * 3)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    qtbot.waitUntil(lambda: window.ctl.current is not None, timeout=10000)
    history = window.ctl.stepper.history
    assert [c.name for c in history] == [c.name for c in want.gradients] and history[0].name == "dec.0.ffn.resid"
    for capture in history:
        got, expected = capture.tensor, want.gradient(capture.name)
        if hasattr(expected, "materialize"):
            got, expected = got.materialize(), expected.materialize()
        assert torch.equal(got, expected), capture.name
    assert "sum of dec.0.ffn.resid" in window.ctl.current.info.formula
    assert window.backward_panel.choice.stage == "dec.0.ffn.resid"


def test_a_vision_model_s_saliency_is_drawn_over_its_picture(make_window, qtbot):
    """tiny-vit on its sample picture, F5, Ctrl+Shift+B, the logit difference of classes 0 and 1 chosen by keys: the Backward
    dock's Picture tab colours each patch by its token's ‖g × e‖₂, the strongest patch fully."""
    import numpy as np

    from tfdebug.adapters.hf.vision import sample_image

    window = make_window()
    run_model(qtbot, window, "tiny-vit", {"image": str(sample_image())}, first="img.patch_embed")
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    image = window.ctl.source.image
    down, tab = (Qt.Key_Down, Qt.NoModifier), (Qt.Key_Tab, Qt.NoModifier)
    backward_by_keys(window, qtbot, [down, down, tab, tab, "#0", tab, "#1"])  # logit(class 0) − logit(class 1)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    panel = window.backward_panel
    qtbot.waitUntil(lambda: panel.summary is not None, timeout=10000)
    saliency = panel.summary.saliency
    rows, cols = image.grid
    assert len(saliency) == rows * cols and panel.tabs.isTabEnabled(1)  # the patch embedding: before [CLS] joins
    norms = np.array([norm for _, norm in saliency])
    weights = panel.picture.weights
    assert weights.shape == (rows, cols) and weights.max() == 1.0
    assert np.allclose(weights.ravel(), norms / norms.max())
    window.ctl.close()


def _click_point(qtbot, plot, x: float, y: float) -> None:
    """A left click on the plot's data point (x, y) at its place on the screen."""
    from PySide6.QtCore import QPointF
    from PySide6.QtTest import QTest

    view = plot.getPlotItem().vb
    scene = view.mapViewToScene(QPointF(x, y))
    at = plot.mapFromScene(scene)
    QTest.mouseClick(plot.viewport(), Qt.LeftButton, Qt.NoModifier, at)


def test_the_parameters_gradient_norms_are_plotted_per_layer_and_module_and_a_click_goes_to_the_layer(finished,
                                                                                                     qtbot, tmp_path):
    """The Parameters tab plots each module kind's gradient norm per layer: the points are autograd's parameter
    gradients of the unmodified GPT-2 under the same loss, grouped by module path here; a click on layer 1's
    attention point goes to dec.1's first gradient in backward order (dec.1.ffn.resid)."""
    import math

    import numpy as np

    import transformers

    from resources import __file__ as resources_init

    window = finished
    session = window.ctl.source.session
    folder = __import__("pathlib").Path(resources_init).parent / "tiny-gpt2"
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()  # unmodified: no taps
    ids = session.prepared.kwargs["input_ids"]
    logits = model(input_ids=ids).logits
    loss = torch.nn.functional.cross_entropy(logits[0, :-1], ids[0, 1:])
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    grads = dict(zip(names, torch.autograd.grad(loss, [p for n, p in model.named_parameters() if p.requires_grad])))

    def norm(pattern: str) -> float:  # √Σ‖g‖² over the parameters whose names hold `pattern`
        return math.sqrt(sum(float(g.double().norm()) ** 2 for n, g in grads.items() if pattern in n))
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    panel = window.backward_panel
    qtbot.waitUntil(lambda: panel.summary is not None, timeout=10000)
    panel.tabs.setCurrentIndex(2)
    plot = panel.norms
    places = plot.places
    assert places[0] == ("dec", None, "embeddings") and places[1:3] == [("dec", 0, ""), ("dec", 1, "")]
    assert places[-1] == ("dec", None, "norm")  # the final norm (lm_head is tied to the embeddings)
    for layer in (0, 1):
        i = places.index(("dec", layer, ""))
        for module, pattern in (("attention", f"h.{layer}.attn."), ("mlp", f"h.{layer}.mlp."),
                                ("norm", f"h.{layer}.ln_")):
            assert plot.series[module][i] == pytest.approx(norm(pattern), rel=1e-5), (layer, module)
        assert plot.total[i] == pytest.approx(norm(f"h.{layer}."), rel=1e-5)
    assert plot.series["embeddings"][0] == pytest.approx(math.sqrt(norm("wte.") ** 2 + norm("wpe.") ** 2), rel=1e-5)
    drawn = plot.items["attention"]
    xs, ys = drawn.getData()
    assert np.allclose(10 ** ys[1:3] if plot.log_y.isChecked() else ys[1:3], plot.series["attention"][1:3])
    # a click on layer 1's attention point goes to that layer's first gradient, F10 on from there
    i = places.index(("dec", 1, ""))
    qtbot.waitUntil(lambda: plot.plot.isVisible(), timeout=5000)
    _click_point(qtbot, plot.plot, xs[i], ys[i])
    qtbot.waitUntil(lambda: window.ctl.current is not None and window.ctl.current.name == "dec.1.ffn.resid",
                    timeout=10000)
    first = next(c.name for c in window.ctl.plan if c.name.startswith("dec.1."))
    assert first == "dec.1.ffn.resid"
    window.resizeDocks([window.docks["backward"]], [380], Qt.Vertical)
    qtbot.wait(100)
    panel.grab().save(str(tmp_path / "norms.png"))  # a picture to look at


def test_a_speech_model_s_saliency_is_drawn_over_its_spectrogram_frames(make_window, qtbot, tmp_path):
    """tiny-whisper on its sample audio, F5, Ctrl+Shift+B: the Picture tab colours each frame of the spectrogram
    by ‖gradient × activation‖₂ of the first convolution's output (one column per frame of the features), the
    strongest fully; the Saliency tab is the decoder's tokens."""
    import numpy as np

    from tfdebug.adapters.hf.speech import sample_audio
    from tfdebug.sessions.backward import run_backward

    window = make_window()
    run_model(qtbot, window, "tiny-whisper", {"audio": str(sample_audio()), "tgt": "a low tone"}, first="src.mel")
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    image = window.ctl.source.image
    session = window.ctl.source.session
    local = run_backward(session.adapter, session.prepared)
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    panel = window.backward_panel
    qtbot.waitUntil(lambda: panel.summary is not None, timeout=10000)
    frames = panel.summary.frames
    assert len(frames) == image.size[1] == 200 and panel.tabs.isTabEnabled(1) and panel.over_frames
    norms = np.array([norm for _, norm in frames])
    assert np.allclose(norms, [n for _, n in local.frame_saliency()], rtol=1e-12)
    weights = panel.picture.weights
    assert weights.shape == (1, 200) and weights.max() == 1.0 and np.allclose(weights.ravel(), norms / norms.max())
    assert panel.summary.tokens == session.tokens["tgt"]  # the Saliency tab: the decoder's tokens
    assert "spectrogram" in panel.picture_note.text()
    panel.tabs.setCurrentIndex(1)
    window.resizeDocks([window.docks["backward"]], [380], Qt.Vertical)
    qtbot.wait(100)
    panel.grab().save(str(tmp_path / "spectrogram.png"))
    panel.tabs.setCurrentIndex(2)
    qtbot.wait(100)
    panel.grab().save(str(tmp_path / "whisper-norms.png"))
    window.ctl.close()


def test_a_reopened_backward_snapshot_shows_its_saliency_and_norms(make_window, qtbot, tmp_path):
    """tiny-whisper's backward saved, then opened in a new window: the Backward dock shows the summary the manifest
    carries (the snapshot keeps no activation to compute gradient × activation again) — the decoder tokens'
    saliency, the spectrogram frames' over the carried spectrogram, the norms plot — and a click's pick on the
    plot goes to the layer's first gradient in the replay."""
    import numpy as np

    from tfdebug.adapters.hf.speech import sample_audio
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.io.snapshot import save_snapshot
    from tfdebug.sessions.backward import run_backward
    from tfdebug.sessions.gradient_session import summary_of
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter("tiny-whisper")
    session = DebugSession(adapter, {"audio": str(sample_audio()), "tgt": "a low tone"}, planning="lazy")
    result = run_backward(adapter, session.prepared)
    want = summary_of(result, session.tokens)
    path = tmp_path / "grad.safetensors"
    save_snapshot(result.recording(session), path)
    window = make_window()
    window.open_snapshot(str(path))
    qtbot.waitUntil(lambda: window.ctl.current is not None and window.ctl.title.startswith("backward"),
                    timeout=30000)
    panel = window.backward_panel
    qtbot.waitUntil(window.docks["backward"].isVisible, timeout=10000)
    assert panel.summary == want and len(want.frames) == 200 and want.tokens == session.tokens["tgt"]
    assert panel.tabs.isTabEnabled(1) and panel.over_frames
    norms = np.array([n for _, n in want.frames])
    assert np.allclose(panel.picture.weights.ravel(), norms / norms.max())
    plot = panel.norms
    assert ("enc", 1, "") in plot.places and ("dec", None, "norm") in plot.places
    plot.pick(plot.places.index(("enc", 1, "")))
    qtbot.waitUntil(lambda: window.ctl.current.name == "enc.1.ffn.resid", timeout=10000)
    window.ctl.close()
