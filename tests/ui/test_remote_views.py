"""The window attached to a real `tfdebug serve --model tiny-gpt2`: Generate (Ctrl+G) and Next Token (Ctrl+T) run
the decoding steps on the server, and the Model View's thumbnails are cut there. The tokens equal the model's own
generate(); the Generation dock's attention row and the Model View's cells equal its own output_attentions."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

pytest.importorskip("zmq")
transformers = pytest.importorskip("transformers")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.remote.test_generation import PROMPT, own_generate  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import pick, press, run_to_stage, type_into  # noqa: E402
from tfdebug.adapters.hf.load import bundled_folder  # noqa: E402


@pytest.fixture(scope="module")
def gpt2_served(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("exports"), model="tiny-gpt2")
    yield server
    stop_server(server)


def own_attentions(words_ids: list[int]) -> list[np.ndarray]:
    """Each layer's attention weights (heads, queries, keys) from the model's own output_attentions."""
    folder = bundled_folder("tiny-gpt2")
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(torch.tensor([words_ids]), output_attentions=True)
    return [a[0].numpy() for a in out.attentions]


def tokenizer():
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(bundled_folder("tiny-gpt2") / "tokenizer.json"))


def test_the_model_view_and_overview_over_a_remote_pass_are_computed_on_the_server(make_window, qtbot, gpt2_served):
    window = make_window()
    window.ctl.close()
    connect_through_the_menu(window, qtbot, gpt2_served)
    press(window, Qt.Key_M, Qt.ControlModifier | Qt.ShiftModifier)  # View ▸ Model View
    view = window.model_view
    qtbot.waitUntil(window.docks["model_view"].isVisible)
    probs = [c for c in window.ctl.plan if c.info.kind == "softmax"]
    assert view.rows == [c.name for c in probs] and len(probs) == 2
    press(window, Qt.Key_F5)  # Continue to the end, on the server
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    qtbot.waitUntil(lambda: len(view.thumbs) == len(probs), timeout=30000)
    assert view.grid.drawn_rows == set(range(len(probs))) and "2 of the stages drawn" in view.note.text()
    own = own_attentions(tokenizer()(window.ctl.source.texts["prompt"]).input_ids)
    for layer, capture in enumerate(probs):  # each cell is that head's probabilities (small: not downsampled)
        drawn = view.thumbs[capture.name].values
        masked = np.isneginf(drawn)  # the causal mask's cells, drawn in the masked colour
        assert drawn.shape == own[layer].shape and masked.any()
        np.testing.assert_allclose(drawn[~masked], own[layer][~masked], rtol=0, atol=1e-5)
        assert (own[layer][masked] == 0).all()

    window.docks["overview"].toggleViewAction().trigger()  # View ▸ Overview: a statistic per stage, from the server
    panel, names = window.overview, window.ctl.plan.names()
    qtbot.waitUntil(window.docks["overview"].isVisible)
    qtbot.waitUntil(lambda: panel.names == names and not any(np.isnan(v) for v in panel.values), timeout=20000)
    for layer, capture in enumerate(probs):
        rms = float(np.sqrt(np.mean(own[layer].astype(np.float64) ** 2)))
        assert abs(panel.values[names.index(capture.name)] - rms) < 1e-5 * rms
    pick(qtbot, panel.statistic, "max |x|")
    qtbot.waitUntil(lambda: panel.values[names.index(probs[0].name)] == pytest.approx(float(own[0].max()), abs=1e-6),
                    timeout=20000)


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
    next_token = window.actions_by_id["tfdebug.gen.next_token"]
    for n in range(1, 4):
        qtbot.waitUntil(next_token.isEnabled)  # a key pressed while the action is still grey does nothing
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
    ids = tokenizer()(PROMPT).input_ids
    first = tokenizer()(words[len(prompt)], add_special_tokens=False).input_ids
    expected = own_attentions(ids + first[:1])[1][panel.head(), -1]  # layer 1, the newest query
    assert row.weights.shape == expected.shape and abs(row.weights - expected).max() < 1e-5
    ctl.close()
