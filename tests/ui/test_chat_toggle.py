"""The input bar's Chat toggle sends the prompt through the tokenizer's chat template (as --chat does), is
enabled only for a model whose tokenizer has one, and is remembered like the other inputs."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.adapters import hf_tokenizers
from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press

transformers = pytest.importorskip("transformers")

QUESTION = "what is the capital of france?"


def test_chat_toggle_applies_the_template_and_is_remembered(make_window, qtbot, tmp_path):
    folder = hf_tokenizers.chat_llama_folder(tmp_path / "chat")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    expected = tokenizer.apply_chat_template([{"role": "user", "content": QUESTION}], add_generation_prompt=True,
                                             tokenize=True, return_dict=True)["input_ids"]
    window = make_window()
    bar = window.input_bar
    bar.set_values(f"hf:{folder}", "cpu", {"prompt": QUESTION})
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, timeout=60000)
    plain = window.ctl.session.prepared.kwargs["input_ids"][0].tolist()
    assert plain[0] == 0 and plain != expected  # <s> + the words: no template
    assert bar.chat.isEnabled() and not bar.chat.isChecked()
    qtbot.mouseClick(bar.chat, Qt.LeftButton)
    assert window.ctl.inputs.chat
    press(window, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.ctl.session is not None and window.ctl.session.prepared.options["call"].chat,
                    timeout=60000)
    wait_paused(qtbot, window, timeout=60000)
    assert window.ctl.session.prepared.kwargs["input_ids"][0].tolist() == expected
    assert window.ctl.session.tokens["prompt"][-1] == "<|assistant|>"
    window.close()  # saves the settings
    again = make_window()
    assert again.last_chat()

    again.input_bar.set_values("tiny-gpt2", "cpu", {"prompt": "I love you ="})
    press(again, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, again, timeout=60000)
    assert not again.input_bar.chat.isEnabled()  # its tokenizer has no chat template
