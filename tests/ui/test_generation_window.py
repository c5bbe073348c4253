"""Generation in the window: Next Token (Ctrl+T) and Run to Token through the window's actions."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.test_generation_panel import start_generation
from tests.ui.user_actions import press
from tfdebug.core.view import RunInputs
from tfdebug.models.sampling import DecodingSettings
from tfdebug.ui.actions import registry as actions


def test_next_token_and_run_to_token(make_window, qtbot):
    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=6))
    window.start(RunInputs("demo", "cpu", {"src": "I love you", "tgt": ""}))
    wait_paused(qtbot, window, "gen.0.src.embed")
    next_token = window.actions_by_id["tfdebug.gen.next_token"]
    assert next_token.isEnabled()
    press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token: step 1 reads the first chosen token
    wait_paused(qtbot, window, "gen.1.tgt.embed")
    assert window.ctl.session.tokens["tgt"] == ["<bos>", "我"]
    assert "gen.1.tgt.embed" in window.shape_panel.plain_text()
    actions.trigger("tfdebug.gen.run_to_token", window.action_context, 3)  # the Debug menu's Run to Token…, N = 3
    wait_paused(qtbot, window, "gen.3.tgt.embed")
    window.ctl.steps.run_to("gen.2.dec.1.self_attn.cache_k")  # back through history: three cached keys
    wait_paused(qtbot, window, "gen.2.dec.1.self_attn.cache_k")
    assert window.ctl.current.shape[2] == 3
    press(window, Qt.Key_F10, Qt.ShiftModifier)  # Step Back across stages of the step
    wait_paused(qtbot, window, "gen.2.dec.1.self_attn.v_split")
    window.ctl.close()


def test_the_map_draws_the_step_being_shown(make_window, qtbot):
    """A generation runs the decoder once per step: the map shows this step's blocks, not all steps stacked."""
    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=3))
    window.start(RunInputs("demo", "cpu", {"src": "I love you", "tgt": ""}))
    wait_paused(qtbot, window, "gen.0.src.embed")
    arch = window.architecture_map

    def drawn() -> set[str]:
        return {part.block.id for part in arch.parts}

    first = drawn()
    assert "gen.0.enc.0.attn" in first and "gen.0.dec.1.cross_attn" in first
    assert not any(b.startswith("gen.1.") for b in first)
    press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token
    wait_paused(qtbot, window, "gen.1.tgt.embed")
    second = drawn()
    decoder = {b for b in second if ".dec." in b or b.endswith((".tgt", ".head"))}
    assert decoder and all(b.startswith("gen.1.") for b in decoder)
    assert "gen.0.enc.1.ffn" in second  # the encoder ran at step 0 only: still drawn, as done
    assert arch._status(arch.part("gen.0.enc.1.ffn")) == "done"
    assert len(second) == len(first)  # one pass's worth of boxes
    window.ctl.close()


def generate_to_the_end(make_window, qtbot):
    """Generate 我 爱 你 from 'I love you' with up to 6 tokens, pressing Ctrl+T (Next Token) until <eos>."""
    window = start_generation(make_window, qtbot, tokens=6)
    for step in (1, 2, 3):
        press(window, Qt.Key_T, Qt.ControlModifier)
        wait_paused(qtbot, window, f"gen.{step}.tgt.embed")
    press(window, Qt.Key_T, Qt.ControlModifier)  # step 3 chooses <eos>: the generation ends
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    assert window.ctl.session.generated == ["我", "爱", "你"]
    return window


def test_next_token_after_the_last_token_is_off_and_says_nothing_wrong(make_window, qtbot):
    window = generate_to_the_end(make_window, qtbot)
    next_token = window.actions_by_id["tfdebug.gen.next_token"]
    qtbot.waitUntil(lambda: not next_token.isEnabled())  # like Continue and Step at the end of a pass
    press(window, Qt.Key_T, Qt.ControlModifier)
    qtbot.wait(100)
    assert window.message_bar.current is None or window.message_bar.current.level != "error"
    press(window, Qt.Key_F10, Qt.ShiftModifier)  # back into step 3: Next Token walks the history again
    qtbot.waitUntil(next_token.isEnabled)
    press(window, Qt.Key_T, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.ctl.current is window.ctl.stepper.history[-1])
    assert window.message_bar.current is None or window.message_bar.current.level != "error"
    window.ctl.close()


def test_the_status_bar_counts_the_stages_a_finished_generation_ran(make_window, qtbot):
    window = generate_to_the_end(make_window, qtbot)
    ran = len(window.ctl.stepper.history)  # steps 0-3 of the 6 planned: <eos> ended it
    assert ran < len(window.ctl.plan)
    qtbot.waitUntil(lambda: window.status_stage.text() == f"Stage {ran} of {ran} · gen.3.logits")
    window.ctl.close()


def test_a_generation_steps_positional_table_is_checked_at_its_position(make_window, qtbot):
    # With a KV cache step 1 adds the PE row of position 1 alone: its row 0 is not position 0's [0, 1, 0, 1, …].
    window = start_generation(make_window, qtbot, tokens=3)
    press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token
    wait_paused(qtbot, window, "gen.1.tgt.embed")
    press(window, Qt.Key_F10)  # Step: the PE table of this step
    wait_paused(qtbot, window, "gen.1.tgt.pe")
    panel = window.explain_panel
    qtbot.waitUntil(lambda: panel.checks is not None and "computing…" not in panel.plain_text())
    text = panel.plain_text()
    assert "✓ Row 0 is position 1: the sin and cos of the formula" in text and "✗" not in text
    window.ctl.close()


def test_the_generation_docks_choices_read_whole(make_window, qtbot):
    window = start_generation(make_window, qtbot, tokens=3)
    press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token: the Generation dock fills its layer and cache boxes
    wait_paused(qtbot, window, "gen.1.tgt.embed")
    panel = window.generation_panel
    qtbot.waitUntil(lambda: panel.block_box.count() > 0)
    for box in (panel.layer_box, panel.block_box):  # the cache box showed 'self-atten'
        widest = max(box.fontMetrics().horizontalAdvance(box.itemText(i)) for i in range(box.count()))
        qtbot.waitUntil(lambda: box.width() >= widest + 20)  # the text and the arrow
    window.ctl.close()


def test_generate_from_the_window_with_keys_only(make_window, qtbot):
    """No command-line flag: choose tiny-gpt2, press Generate (Ctrl+G), then Next Token (Ctrl+T) three
    times; the tokens are the ones the model's own generate() chooses from the same prompt."""
    import pytest

    pytest.importorskip("transformers")
    import torch
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

    from PySide6.QtTest import QTest

    from tests.ui.user_actions import type_into
    from tfdebug.adapters.hf.load import bundled_folder

    window = make_window()
    assert "Generate (Ctrl+G)" in window.generation_panel.summary.text()
    type_into(qtbot, window.input_bar.model.lineEdit(), "tiny-gpt2")
    QTest.keyClick(window.input_bar.model.lineEdit(), Qt.Key_Return)  # one pass on its first preset
    wait_paused(qtbot, window, "tok.embed", timeout=60000)
    assert window.input_bar.fields["prompt"].text() == "I love you = 我 爱 你"
    press(window, Qt.Key_G, Qt.ControlModifier)  # Generate, beside Run: from the preset's question
    wait_paused(qtbot, window, "gen.0.tok.embed", timeout=60000)
    assert "".join(window.ctl.session.tokens["prompt"]).endswith("iloveyou=")  # the tokenizer lowercases
    next_token = window.actions_by_id["tfdebug.gen.next_token"]
    for _ in range(3):
        step = len(window.ctl.session.tokens["prompt"])
        # A key pressed while the action is still grey does nothing; the last step's end can come (its token
        # counted) a moment before the pass pauses at the next step's first stage: wait for the pause itself.
        qtbot.waitUntil(lambda: next_token.isEnabled() and window.ctl.stepper.state == "paused", timeout=30000)
        press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token
        qtbot.waitUntil(lambda: len(window.ctl.session.tokens["prompt"]) > step, timeout=30000)
    wait_paused(qtbot, window, timeout=30000)
    got = window.ctl.session.tokens["prompt"]

    folder = bundled_folder("tiny-gpt2")
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = tokenizer("I love you =", return_tensors="pt").input_ids
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=3, do_sample=False, pad_token_id=model.config.eos_token_id)
    expected = [tokenizer.decode([int(t)]).strip() for t in out[0, ids.shape[1]:]]
    assert [t.strip() for t in got[-3:]] == expected, (got, expected)
    window.ctl.close()


def test_decoding_settings_are_chosen_in_the_window_and_kept(make_window, qtbot, settings):
    window = make_window()
    window.actions_by_id["tfdebug.session.decoding"].trigger()
    dialog = window.tools.decoding.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.max_new_tokens.setValue(4)
    dialog.how.setCurrentIndex(1)  # Sample
    assert dialog.temperature.isEnabled()
    dialog.temperature.setValue(0.7)
    dialog.seed.setValue(3)
    dialog.accept()
    assert window.ctl.decoding == DecodingSettings(max_new_tokens=4, sample=True, temperature=0.7, seed=3)
    again = make_window(settings)  # the next launch
    assert again.ctl.decoding == window.ctl.decoding


def test_a_generation_steps_prediction_is_named_by_its_token_and_its_place_in_the_sentence(make_window, qtbot):
    # Step 2's logits have one row, the newest token's ('爱', third of <bos> 我 爱): "after 0 '爱'" misread it.
    window = start_generation(make_window, qtbot, tokens=3)
    for step in (1, 2):
        press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token
        wait_paused(qtbot, window, f"gen.{step}.tgt.embed")
    window.ctl.steps.run_to("gen.2.logits")
    wait_paused(qtbot, window, "gen.2.logits")
    assert window.ctl.current.shape[1] == 1  # the KV cache: this step computes one position
    tokens = window.ctl.session.tokens["tgt"]
    assert tokens[:3] == ["<bos>", "我", "爱"]
    prediction = window.heads_panel.prediction
    qtbot.waitUntil(prediction.isVisible)
    assert [prediction.row_combo.itemText(i) for i in range(prediction.row_combo.count())] == ["after '爱' (position 2)"]
    assert prediction.predictions[0][0] == "你"  # what the model chose next
    window.ctl.close()
