"""The Generation dock's token tooltips read a model's tokens exactly as they are, whitespace included."""

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.test_generation_panel import shown
from tests.ui.user_actions import press, tooltip_as_read
from tfdebug.core.view import RunInputs
from tfdebug.models.sampling import DecodingSettings

hf_tiny = pytest.importorskip("tests.adapters.hf_tiny")


def byte_level_tokenizer():
    """A GPT-2-style byte-level BPE tokenizer: ' love' (with its space) is one token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(["I love you", "you love me", "the cat sat on the mat"] * 5, trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def test_a_token_with_a_leading_space_keeps_it_in_its_tooltip(make_window, qtbot, tmp_path):
    tokenizer = byte_level_tokenizer()
    folder = hf_tiny.save_folder(hf_tiny.gpt2(vocab=tokenizer.get_vocab_size()), tmp_path / "gpt2", tokenizer)
    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=2))
    window.start(RunInputs(f"hf:{folder}", "cpu", {"prompt": "I love you"}))
    wait_paused(qtbot, window, "gen.0.tok.embed", timeout=60000)
    press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token
    wait_paused(qtbot, window, "gen.1.tok.embed", timeout=60000)
    strip = shown(window, qtbot).strip
    assert [e.text for e in strip.entries[:3]] == ["I", " love", " you"]
    assert tooltip_as_read(strip.buttons[1].toolTip()) == " love: prompt, fed at step 0"
    chosen = strip.entries[3]
    lines = tooltip_as_read(strip.buttons[3].toolTip()).splitlines()
    assert lines[0] == f"{chosen.text}: chosen at step 0 (p = {chosen.probability:.3f})"
    assert lines[1] == "Top 5 alternatives:"
    assert lines[2:] == [f"{p:.3f}  {'▶ ' if text == chosen.text else ''}{text}" for text, p in chosen.alternatives]
    window.ctl.close()
