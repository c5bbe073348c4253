"""A Hugging Face model in the window, driven by typing a prompt and pressing Run, as an ML engineer does."""

import pytest
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
