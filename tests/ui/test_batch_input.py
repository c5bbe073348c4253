"""Batch…: several texts in the window make one batch padded by the tokenizer, as the CLI's repeated --input does.

A WordPiece encoder (tests/adapters/hf_tokenizers): the text typed in the input bar and two more lines in
the Batch dialog run as three rows; the ids and the mask equal AutoTokenizer([...], padding=True), the mask
stage is in the pass, the heatmap's batch selector walks the rows, and the probabilities at a row's [PAD]
keys are zero, as in the model's own output_attentions.
"""

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press, run_to_stage

transformers = pytest.importorskip("transformers")

from tests.adapters import hf_tokenizers  # noqa: E402

ROWS = ["the quick brown fox jumps over the lazy dog", "the cat sat", "a dog in paris"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return hf_tokenizers.wordpiece_bert_folder(tmp_path_factory.mktemp("encoder"))


def test_a_batch_typed_in_the_window_is_padded_and_masked(make_window, qtbot, folder):
    window = make_window()
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"text": ROWS[0], "text_pair": ""})
    bar = window.input_bar
    qtbot.mouseClick(bar.batch_button, Qt.LeftButton)  # Batch…
    dialog = window.tools.batch.dialog
    qtbot.waitUntil(dialog.isVisible)
    qtbot.mouseClick(dialog.rows.viewport(), Qt.LeftButton)
    qtbot.keyClicks(dialog.rows, ROWS[1])
    qtbot.keyClick(dialog.rows, Qt.Key_Return)
    qtbot.keyClicks(dialog.rows, ROWS[2])
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok), Qt.LeftButton)
    assert window.ctl.inputs.batch == tuple(ROWS[1:])
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run
    wait_paused(qtbot, window, timeout=60000)

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    encoding = tokenizer(ROWS, padding=True, return_tensors="pt")
    kwargs = window.ctl.session.prepared.kwargs
    assert torch.equal(kwargs["input_ids"], encoding["input_ids"])
    assert torch.equal(kwargs["attention_mask"], encoding["attention_mask"])
    assert "enc.0.attn.masked" in window.ctl.plan.names()

    run_to_stage(window, qtbot, "enc.0.attn.probs")
    probs = window.ctl.current.tensor
    assert probs.shape[0] == 3
    batch = window.heatmap_panel.spin_boxes["batch"]
    batch.setFocus()
    qtbot.keyClick(batch, Qt.Key_Up)  # the batch selector: row 1, "the cat sat" and its padding
    qtbot.waitUntil(lambda: window.ctl.axes.indices()[0] == 1)
    pads = int((encoding["attention_mask"][1] == 0).sum())
    assert pads > 0 and float(probs[1, ..., -pads:].abs().max()) == 0.0
    model = transformers.AutoModel.from_pretrained(str(folder), local_files_only=True,
                                                   attn_implementation="eager").eval()
    with torch.no_grad():
        own = model(**encoding, output_attentions=True).attentions[0]
    assert float((probs.float() - own).abs().max()) <= 1e-5
    window.ctl.close()
