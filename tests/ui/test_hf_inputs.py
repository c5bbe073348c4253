"""A Hugging Face model in the window, driven by typing a prompt and pressing Run, as an ML engineer does."""

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import type_into

pytest.importorskip("transformers")


def test_words_the_tokenizer_does_not_know_are_named(make_window, qtbot):
    window = make_window()
    window.input_bar.set_values("tiny-gpt2", "cpu", {"prompt": "i love you ="})
    prompt = window.input_bar.field("prompt")
    type_into(qtbot, prompt, "i love zebras and qwxz =")
    QTest.keyClick(prompt, Qt.Key_Return, Qt.ControlModifier)  # Run, typed in the field
    wait_paused(qtbot, window, "tok.embed", timeout=60000)
    assert window.ctl.session.tokens["prompt"].count("<unk>") == 2
    assert window.message_bar.text() == "Not in the vocabulary (shown as <unk>): zebras, qwxz."
    window.ctl.close()


def test_a_tokenizer_that_is_not_the_models_is_one_sentence(make_window, qtbot, tmp_path):
    from tests.adapters import hf_tiny
    from tests.ui.test_token_strip_text import byte_level_tokenizer

    # A 277-token byte-level tokenizer beside a model with a 40-row embedding (another model's tokenizer.json).
    folder = hf_tiny.save_folder(hf_tiny.gpt2(), tmp_path / "gpt2", byte_level_tokenizer())
    window = make_window()
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": ""})
    prompt = window.input_bar.field("prompt")
    type_into(qtbot, prompt, "I love you")
    QTest.keyClick(prompt, Qt.Key_Return, Qt.ControlModifier)  # Run
    qtbot.waitUntil(lambda: window.message_bar.current is not None and not window.ctl.loader.busy, timeout=60000)
    assert window.message_bar.text() == (
        "The tokenizer gives 'I' the id 41, but the model's embedding has only 40 rows: "
        "the folder's tokenizer.json does not belong to this model.")
    assert window.ctl.stepper is None


def test_a_generation_that_ends_reports_no_error(make_window, qtbot):
    from tfdebug.core.view import RunInputs
    from tfdebug.models.sampling import DecodingSettings
    from tfdebug.ui.workers import jobs as workers

    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=4))
    window.start(RunInputs("tiny-gpt2", "cpu", {"prompt": "i love you ="}))
    wait_paused(qtbot, window, "gen.0.tok.embed", timeout=60000)
    errors = []
    window.ctl.message.connect(lambda m: m.level == "error" and errors.append(m))
    QTest.keyClick(window, Qt.Key_F5)  # Continue to the end of the generation
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=60000)
    qtbot.waitUntil(lambda: not workers._RUNNING, timeout=30000)  # what the window does after a pass ends
    qtbot.wait(100)
    assert window.ctl.session.generated[:3] == ["我", "爱", "你"]
    assert errors == []  # was: "The check against the unmodified model could not run." (AttributeError)
    window.ctl.close()


def test_the_explain_panel_checks_a_grouped_query_repeat(make_window, qtbot, tmp_path):
    from tests.adapters import hf_tiny
    from tests.ui.user_actions import run_to_stage
    from tfdebug.core.view import RunInputs

    folder = hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")  # 4 query heads share 2 K/V heads
    window = make_window()
    window.start(RunInputs(f"hf:{folder}", "cpu", {"prompt": "I love you"}))
    wait_paused(qtbot, window, timeout=60000)
    run_to_stage(window, qtbot, "dec.0.self_attn.k_repeat")
    panel = window.explain_panel
    qtbot.waitUntil(lambda: panel.checks is not None and "computing…" not in panel.plain_text())
    assert "✓ Each group of 2 heads holds 2 copies of one K/V head" in panel.plain_text()
    window.ctl.close()


def test_a_cached_generation_step_says_what_each_stage_reads(make_window, qtbot, tmp_path):
    from tests.adapters import hf_tiny
    from tfdebug.core.view import RunInputs
    from tfdebug.models.sampling import DecodingSettings

    folder = hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")  # rotary, 4 query heads on 2 K/V heads
    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=3))
    window.start(RunInputs(f"hf:{folder}", "cpu", {"prompt": "I love you"}))
    wait_paused(qtbot, window, "gen.0.tok.embed", timeout=60000)
    QTest.keyClick(window, Qt.Key_T, Qt.ControlModifier)  # Next Token: step 1 runs on the cache
    wait_paused(qtbot, window, "gen.1.tok.embed", timeout=60000)
    window.ctl.steps.run_to("gen.1.dec.0.self_attn.k_repeat")
    wait_paused(qtbot, window, "gen.1.dec.0.self_attn.k_repeat")
    # It repeats the K cache (every key so far), not the V cache as the Shape panel said (nor this step's K).
    text = window.shape_panel.plain_text()
    assert "gen.1.dec.0.self_attn.cache_k" in text and "cache_v" not in text
    panel = window.explain_panel
    qtbot.waitUntil(lambda: panel.checks is not None and "computing…" not in panel.plain_text())
    assert "✓ Each group of 2 heads holds 2 copies of one K/V head" in panel.plain_text()
    window.ctl.close()


def test_hovering_a_masked_cell_of_a_transformers_mask_reads_what_the_tensor_holds(make_window, qtbot, tmp_path):
    """transformers marks masked scores with finfo.min, not −∞: the heatmap draws them as masked,
    and the hover readout names the number the tensor holds there."""
    from tests.adapters import hf_tiny
    from tests.ui.user_actions import run_model

    folder = hf_tiny.save_folder(hf_tiny.gpt2(), tmp_path / "gpt2")
    window = make_window()
    run_model(qtbot, window, f"hf:{folder}", {"prompt": "the cat sat on the mat"}, "tok.embed")
    window.ctl.steps.run_to("dec.0.self_attn.masked")
    wait_paused(qtbot, window, "dec.0.self_attn.masked", timeout=60000)
    heatmap = window.heatmap_panel
    qtbot.waitUntil(lambda: heatmap.slice is not None and heatmap.slice is window.ctl.shown.current_slice)
    finfo_min = f"{torch.finfo(torch.float32).min:.4g}"
    assert heatmap.readout_at(0, 5).endswith(f"value {finfo_min} (masked)")  # above the diagonal
    assert "(masked)" not in heatmap.readout_at(5, 0)
    window.ctl.close()


def test_a_text_that_makes_the_tokenizer_panic_is_one_sentence_in_the_window(make_window, qtbot, tmp_path, capfd):
    """A pre-tokenizer regex that backtracks until the Rust engine panics (issue 39): the message bar says it in
    a sentence, no Python traceback reaches stderr, and the window runs an ordinary text after it."""
    from tests.adapters import hf_tiny

    folder = hf_tiny.save_folder(hf_tiny.gpt2(), tmp_path / "gpt2")
    hf_tiny.backtracking_tokenizer(folder)
    window = make_window()
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": ""})
    prompt = window.input_bar.field("prompt")
    type_into(qtbot, prompt, "a" * 40 + "c")
    QTest.keyClick(prompt, Qt.Key_Return, Qt.ControlModifier)  # Run
    qtbot.waitUntil(lambda: window.message_bar.current is not None and not window.ctl.loader.busy, timeout=60000)
    assert window.message_bar.text().startswith("The tokenizer failed on this text: ")
    assert "retry-limit" in window.message_bar.text() and window.ctl.stepper is None
    assert "Traceback" not in capfd.readouterr().err
    prompt.selectAll()
    type_into(qtbot, prompt, "a b")
    QTest.keyClick(prompt, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, "tok.embed", timeout=60000)
