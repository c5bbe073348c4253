"""The Generation dock, driven through the window: token strip, attention rows and K/V cache follow each step."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import open_snapshot, press, tooltip_as_read
from tfdebug.core.view import RunInputs
from tfdebug.models.sampling import DecodingSettings


def start_generation(make_window, qtbot, tokens=6):
    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=tokens))
    window.start(RunInputs("demo", "cpu", {"src": "I love you", "tgt": ""}))
    wait_paused(qtbot, window, "gen.0.src.embed")
    return window


def shown(window, qtbot):
    """Wait until the Generation dock has redrawn for the stage on screen."""
    panel = window.generation_panel
    # The panels follow a change one event-loop turn after it (ShownStage's `followed`): settled first.
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and not panel._dirty)
    return panel


def test_next_token_grows_strip_cache_and_attention_rows(make_window, qtbot):
    window = start_generation(make_window, qtbot)
    assert window.docks["generation"].isVisible()  # raised over Heads when a generation runs
    panel = shown(window, qtbot)  # before the first attention: a note, no empty plots
    assert panel.cache.plots["k"].titleLabel.text == "The cache fills when this step's attention runs."
    assert not any(plot.getAxis(side).isVisible() for plot in panel.cache.plots.values() for side in ("left", "bottom"))
    press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token
    wait_paused(qtbot, window, "gen.1.tgt.embed")
    press(window, Qt.Key_T, Qt.ControlModifier)
    wait_paused(qtbot, window, "gen.2.tgt.embed")
    panel = shown(window, qtbot)
    # The strip: the prompt, then each chosen token with its probability; step 2 feeds 爱.
    assert [e.text for e in panel.strip.entries[:3]] == ["<bos>", "我", "爱"]
    first = window.ctl.session.entries()[1]
    assert 0 < first.probability <= 1 and panel.strip.buttons[1].text() == f"我\n{first.probability:.2f}"
    assert panel.strip.roles()[:3] == ["", "", "fed"]
    tip = tooltip_as_read(panel.strip.buttons[1].toolTip()).splitlines()
    assert tip[0].startswith("我: chosen at step 0") and tip[1] == "Top 5 alternatives:" and len(tip) == 7
    # At the step's first stage its attention has not run: the dock shows step 1's (two keys).
    assert panel.cache.shown["k"].shape[0] == 2 and panel.cache.new_rows == 1
    assert all(plot.getAxis(side).isVisible() for plot in panel.cache.plots.values() for side in ("left", "bottom"))
    window.ctl.steps.run_to("gen.2.dec.1.cross_attn.out")  # past this step's self- and cross-attention
    wait_paused(qtbot, window, "gen.2.dec.1.cross_attn.out")
    panel = shown(window, qtbot)
    assert panel.layer == ("dec", 1)
    assert panel.cache.shown["k"].shape == (3, 32) and panel.cache.shown["v"].shape == (3, 32)
    assert panel.cache.new_rows == 1  # 爱's key and value, outlined
    assert window.generation_panel.cache.outlines["k"].isVisible()
    self_row, cross_row = panel.rows["self_attn"], panel.rows["cross_attn"]
    assert self_row.labels == ["<bos>", "我", "爱"] and abs(float(self_row.weights.sum()) - 1) < 1e-5
    assert "query 爱 at step 2" in self_row.title
    assert cross_row.labels[:3] == ["i", "love", "you"] and abs(float(cross_row.weights.sum()) - 1) < 1e-5
    window.ctl.close()


def test_later_steps_label_axes_with_tokens(make_window, qtbot):
    """Regression: the controller copied the tokens once, so step 2's key axis showed 0, 1, 2."""
    window = start_generation(make_window, qtbot)
    window.ctl.steps.run_to_token(3)
    wait_paused(qtbot, window, "gen.3.tgt.embed")
    window.ctl.steps.run_to("gen.2.dec.0.self_attn.cache_k")
    wait_paused(qtbot, window, "gen.2.dec.0.self_attn.cache_k")
    key_axis = window.ctl.current.info.axes.index("key")
    assert window.ctl.axes.labels(key_axis) == ["<bos>", "我", "爱"]
    window.ctl.close()


def test_click_token_goes_to_its_step_and_heads_choose_the_head(make_window, qtbot):
    window = start_generation(make_window, qtbot)
    window.ctl.steps.run_to_token(3)
    wait_paused(qtbot, window, "gen.3.tgt.embed")
    panel = shown(window, qtbot)
    qtbot.mouseClick(panel.strip.buttons[2], Qt.LeftButton)  # 爱, chosen at step 1
    wait_paused(qtbot, window, "gen.1.tgt.embed")
    panel = shown(window, qtbot)
    assert panel.step == 1 and panel.strip.roles()[:4] == ["", "fed", "chosen", "later"]
    assert panel.summary.text().startswith("Step 1 · chooses 爱")
    window.ctl.steps.run_to("gen.1.dec.1.self_attn.probs")
    wait_paused(qtbot, window, "gen.1.dec.1.self_attn.probs")
    window.ctl.axes.set_index("head", 2)  # what a click on a head thumbnail does
    panel = shown(window, qtbot)
    probs = window.ctl.current.tensor
    assert "head 2" in panel.rows["self_attn"].title
    assert panel.rows["self_attn"].weights.tolist() == probs[0, 2, -1].tolist()
    window.ctl.close()


def test_recorded_generation_replays_in_the_dock(make_window, qtbot, tmp_path):
    """A `tfdebug generate --out` snapshot: the strip lists its tokens (no probabilities), a click goes to
    the step, and the cache shown grows with the step."""
    from tfdebug.cli import main

    path = tmp_path / "run.safetensors"
    assert main(["generate", "--model", "demo", "--input", "src=I love you", "--max-new-tokens", "4",
                 "--out", str(path)]) == 0
    window = make_window()
    assert open_snapshot(qtbot, window, path)
    wait_paused(qtbot, window)
    panel = shown(window, qtbot)
    assert [e.text for e in panel.strip.entries[:4]] == ["<bos>", "我", "爱", "你"]
    assert all(e.probability is None for e in panel.strip.entries)
    assert "not recorded" in tooltip_as_read(panel.strip.buttons[2].toolTip())
    qtbot.mouseClick(panel.strip.buttons[3], Qt.LeftButton)  # 你, chosen at step 2
    wait_paused(qtbot, window, "gen.2.tgt.embed")
    window.ctl.steps.run_to("gen.2.dec.0.self_attn.probs")
    wait_paused(qtbot, window, "gen.2.dec.0.self_attn.probs")
    panel = shown(window, qtbot)
    assert panel.cache.shown["k"].shape[0] == 3 and panel.rows["self_attn"].labels == ["<bos>", "我", "爱"]


def test_hugging_face_language_model_in_the_dock(make_window, qtbot):
    """The bundled tiny GPT-2 generating: its DynamicCache in the cache view, no cross-attention row."""
    import pytest

    pytest.importorskip("transformers")
    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=4))
    window.start(RunInputs("tiny-gpt2", "cpu", {"prompt": "I love you ="}))
    wait_paused(qtbot, window, "gen.0.tok.embed", timeout=60000)  # loading transformers takes a while
    press(window, Qt.Key_T, Qt.ControlModifier)
    wait_paused(qtbot, window, "gen.1.tok.embed", timeout=30000)
    window.ctl.steps.run_to("gen.1.dec.1.self_attn.context")
    wait_paused(qtbot, window, "gen.1.dec.1.self_attn.context")
    panel = shown(window, qtbot)
    prompt = window.ctl.session.prepared.tokens["prompt"]
    assert [e.text for e in panel.strip.entries][:len(prompt) + 1] == prompt + ["我"]
    assert panel.cache.shown["k"].shape[0] == len(prompt) + 1 and panel.cache.new_rows == 1
    assert panel.rows["self_attn"].labels == prompt + ["我"]
    assert panel.rows["self_attn"].isVisible() and not panel.rows["cross_attn"].isVisible()
    window.ctl.close()


def test_grouped_query_cache_shows_the_kv_head_the_query_head_reads(make_window, qtbot, tmp_path):
    """LLaMA-style GQA (4 query heads, 2 K/V heads): query head 3 reads K/V head 1."""
    import pytest

    pytest.importorskip("transformers")
    from tests.adapters import hf_tiny

    folder = hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")
    window = make_window()
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": "I love you"})
    press(window, Qt.Key_G, Qt.ControlModifier)  # Generate
    wait_paused(qtbot, window, "gen.0.tok.embed", timeout=60000)
    window.ctl.steps.run_to("gen.1.dec.0.self_attn.context")
    wait_paused(qtbot, window, "gen.1.dec.0.self_attn.context")
    window.ctl.axes.set_index("head", 3)
    panel = shown(window, qtbot)
    cache_k = window.ctl.stepper.history[window.ctl.steps.reached("gen.1.dec.0.self_attn.cache_k")].tensor
    assert cache_k.shape[1] == 2
    assert panel.cache.shown["k"].tolist() == cache_k[0, 1].tolist()
    assert "head 1" in panel.cache.plots["k"].titleLabel.text and "head 3" in panel.rows["self_attn"].title
    window.ctl.close()
