"""The input bar's Chat toggle on a window attached to `tfdebug serve`: the server applies the tokenizer's chat
template, as `--chat` does; checked against transformers' own AutoTokenizer.apply_chat_template."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("zmq")
transformers = pytest.importorskip("transformers")

from tests.adapters import hf_tokenizers  # noqa: E402
from tests.remote.served import attached, start_server, stop_server  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import press  # noqa: E402
from tfdebug.core.errors import InputError  # noqa: E402

QUESTION = "what is the capital of france?"


@pytest.fixture(scope="module")
def chat_served(tmp_path_factory):
    folder = hf_tokenizers.chat_llama_folder(tmp_path_factory.mktemp("chat"))
    server = start_server(tmp_path_factory.mktemp("exports"), model=f"hf:{folder}")
    yield server, folder
    stop_server(server)


def template_ids(folder) -> list[int]:
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    return tokenizer.apply_chat_template([{"role": "user", "content": QUESTION}], add_generation_prompt=True,
                                         tokenize=True, return_dict=True)["input_ids"]


def test_chat_is_kept_until_turned_off(chat_served):
    """`chat` None keeps the served pass's setting; False sends the plain text again (what the toggle says)."""
    served, folder = chat_served
    with attached(served) as session:
        on = session.reopen({"prompt": QUESTION}, chat=True)
        kept = on.reopen({"prompt": QUESTION})
        assert kept.chat and len(kept.tokens["prompt"]) == len(template_ids(folder))
        off = kept.reopen({"prompt": QUESTION}, chat=False)
        assert not off.chat and "<|assistant|>" not in off.tokens["prompt"]
        off.close()


def test_the_chat_toggle_runs_the_template_on_the_server(make_window, qtbot, chat_served):
    served, folder = chat_served
    window = make_window()
    window.ctl.close()
    connect_through_the_menu(window, qtbot, served)
    bar = window.input_bar
    assert bar.chat.isEnabled() and not bar.chat.isChecked()  # the served tokenizer has a template
    edit = bar.fields["prompt"]
    edit.selectAll()
    qtbot.keyClicks(edit, QUESTION)
    qtbot.mouseClick(bar.chat, Qt.LeftButton, pos=bar.chat.rect().center())
    assert bar.chat.isChecked()
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run: a new pass on the server
    qtbot.waitUntil(lambda: not window.ctl.loader.busy and window.ctl.source.texts.get("prompt") == QUESTION,
                    timeout=60000)
    remote = window.ctl.source
    expected = template_ids(folder)
    assert remote.chat and len(remote.tokens["prompt"]) == len(expected)
    assert remote.tokens["prompt"][-1] == "<|assistant|>" and bar.chat.isChecked()


def test_chat_on_a_model_without_a_template_is_one_sentence(tmp_path):
    served = start_server(tmp_path, model="tiny-gpt2")
    try:
        with attached(served) as session:
            assert not session.can_chat()
            with pytest.raises(InputError, match="The Chat toggle needs a model whose tokenizer has a chat template"):
                session.reopen({"prompt": QUESTION}, chat=True)
            assert not session.chat
    finally:
        stop_server(served)
