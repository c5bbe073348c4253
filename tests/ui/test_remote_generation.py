"""Generate in the window attached to a real `tfdebug serve --model tiny-gpt2`: Ctrl+G and Ctrl+T run the decoding
steps on the server; the tokens equal the model's own generate() and the Generation dock's attention row equals
the model's own output_attentions."""

from __future__ import annotations

import pytest
import torch
from PySide6.QtCore import Qt

pytest.importorskip("zmq")
transformers = pytest.importorskip("transformers")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.remote.test_generation import PROMPT, own_generate  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import press, run_to_stage, type_into  # noqa: E402
from tfdebug.adapters.hf_load import bundled_folder  # noqa: E402


@pytest.fixture()
def gpt2_served(tmp_path):
    server = start_server(tmp_path, model="tiny-gpt2")
    yield server
    stop_server(server)


def own_attention_row(words_ids: list[int], layer: int, head: int):
    """The last query's attention weights in `layer`, `head`, from the model's own output_attentions."""
    folder = bundled_folder("tiny-gpt2")
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(torch.tensor([words_ids]), output_attentions=True)
    return out.attentions[layer][0, head, -1].numpy()


def test_generate_and_next_token_run_on_the_server_and_the_dock_shows_them(make_window, qtbot, gpt2_served):
    window = make_window()
    window.ctl.close()
    window.actions_by_id["tfdebug.session.decoding"].trigger()  # Debug ▸ Decoding Settings…: up to 4 tokens
    dialog = window.tools.decoding.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.max_new_tokens.setValue(4)
    dialog.accept()
    connect_through_the_menu(window, qtbot, gpt2_served)
    ctl, bar = window.ctl, window.input_bar
    generate = window.actions_by_id["tfdebug.session.generate"]
    qtbot.waitUntil(lambda: generate.isEnabled() and bar.field("prompt").isEnabled())
    bar.field("prompt").selectAll()
    type_into(qtbot, bar.field("prompt"), PROMPT)
    press(window, Qt.Key_G, Qt.ControlModifier)  # Generate: the server starts a generation of the typed prompt
    qtbot.waitUntil(lambda: ctl.is_generating() and ctl.current is not None
                    and ctl.current.name == "gen.0.tok.embed", timeout=60000)
    assert window.docks["generation"].isVisible()
    prompt = list(ctl.tokens["prompt"])
    for n in range(1, 4):
        press(window, Qt.Key_T, Qt.ControlModifier)  # Next Token
        qtbot.waitUntil(lambda: len(ctl.tokens["prompt"]) == len(prompt) + n and ctl.stepper.state == "paused",
                        timeout=30000)
    words = ctl.tokens["prompt"]
    assert [w.strip() for w in words[len(prompt):]] == own_generate(3)

    run_to_stage(window, qtbot, "gen.1.dec.1.self_attn.context")
    panel = window.generation_panel
    row = panel.rows["self_attn"]
    qtbot.waitUntil(lambda: not panel._dirty and panel.step == 1 and row.weights is not None
                    and "k" in panel.cache.shown and panel.cache.shown["k"].shape[0] == len(prompt) + 1,
                    timeout=20000)
    assert row.labels == prompt + [words[len(prompt)]] and panel.cache.new_rows == 1
    assert [e.text for e in panel.strip.entries if e.generated] == words[len(prompt):]
    assert panel.summary.text().startswith(f"Step 1 · chooses {words[len(prompt) + 1]} (p = ")
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(bundled_folder("tiny-gpt2") / "tokenizer.json"))
    ids = tokenizer(PROMPT).input_ids
    first = tokenizer(words[len(prompt)], add_special_tokens=False).input_ids
    expected = own_attention_row(ids + first[:1], layer=1, head=panel.head())
    assert row.weights.shape == expected.shape and abs(row.weights - expected).max() < 1e-5
    ctl.close()
