"""The Chinese window says the values inside its sentences in Chinese too (a file's problem, a system
error's reason, a list of choices, an edit, an adapter's note, the Overview's layer titles), and a
message on screen is said again in the new language after View ▸ Language."""

import errno
import json
import re
import struct

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import open_through_the_dialog, press, run_to_stage
from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import Choices, os_reason
from tfdebug.core.view import RunInputs
from tfdebug.io.recording import MANIFEST_KEY
from tfdebug.io.snapshot import open_snapshot, save_snapshot
from tfdebug.ui.i18n import language as i18n

WORD = re.compile(r"[A-Za-z]{2,}")


def english_words(text: str, *allowed: str) -> list[str]:
    """The ASCII words left in `text` once the names, paths and symbols in `allowed` are taken out."""
    for name in allowed:
        text = text.replace(name, " ")
    return WORD.findall(text)


def damaged_snapshot(window, tmp_path):
    """A snapshot of the window's pass whose manifest gives its first stage a kind no tfdebug knows."""
    path = tmp_path / "damaged.safetensors"
    recording, _ = window.ctl.recording()
    save_snapshot(recording, path)
    blob = path.read_bytes()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    manifest["stages"][0]["kind"] = "teleport"
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest)
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + blob[8 + n:])
    return path


def test_a_damaged_snapshot_opened_from_the_file_menu_is_explained_in_chinese(window, qtbot, tmp_path):
    path = damaged_snapshot(window, tmp_path)
    with pytest.raises(SnapshotError) as raised:
        open_snapshot(path)
    english = raised.value.message  # what the CLI prints, unchanged
    assert english == f"The file {path} has a damaged manifest: stage 'src.embed' has an unknown kind."
    i18n.set_language("zh")
    open_through_the_dialog(qtbot, window, path)  # Qt's own dialog, in Chinese
    qtbot.waitUntil(lambda: not window.ctl.loader.busy and window.message_bar.text() != "")  # read off the UI thread
    shown = window.message_bar.text()
    assert shown == f"文件 {path} 的清单已损坏：阶段“src.embed”的种类未知。"
    assert english_words(shown, str(path), "src.embed") == []
    window.grab().save(str(tmp_path / "damaged-zh.png"))
    # View ▸ Language: the message on screen is said again in English, word for word the CLI's.
    i18n.set_language("en")
    assert window.message_bar.text() == english
    qtbot.waitUntil(lambda: window.message_bar.label.text() == english)
    i18n.set_language("zh")
    qtbot.waitUntil(lambda: window.message_bar.label.text() == shown)


def test_a_system_error_reason_is_translated_when_known_and_kept_raw_otherwise(qapp):
    full = OSError(errno.ENOSPC, "No space left on device")
    odd = OSError(errno.EXDEV, "Invalid cross-device link")
    assert (os_reason(full), os_reason(odd)) == ("No space left on device", "Invalid cross-device link")
    i18n.set_language("zh")
    assert i18n.phrase_text(os_reason(full)) == "设备上没有剩余空间"
    assert i18n.phrase_text(os_reason(odd)) == "Invalid cross-device link"  # unknown: as the system said it
    error = SnapshotError("Cannot read {path}: {reason}.", id="safetensors.cannot_read", path="/x/a.safetensors",
                          reason=os_reason(OSError(errno.EACCES, "Permission denied")))
    assert error.message == "Cannot read /x/a.safetensors: Permission denied."
    assert i18n.error_text(error) == "无法读取 /x/a.safetensors：权限不足。"
    assert i18n.phrase_text(Choices([".a", ".b", ".c"])) == ".a、.b 或 .c"


def test_export_choices_and_format_labels_are_chinese(window, qtbot, tmp_path):
    i18n.set_language("zh")
    window.exports.start(str(tmp_path / "pass.xyz"))
    shown = window.message_bar.text()
    assert shown == "无法导出为 .xyz：请选择 .safetensors、.npz、.pt、.csv、.png 或 .svg 文件。"
    assert english_words(shown, ".safetensors", ".npz", ".pt", ".csv", ".png", ".svg", ".xyz") == []
    from tfdebug.ui.features.export.dialog import ExportDialog

    dialog = ExportDialog(["src.embed"], "src.embed", str(tmp_path), parent=window)
    labels = [dialog.format_box.itemText(i) for i in range(dialog.format_box.count())]
    assert labels[0] == "快照 (.safetensors)" and labels[-1] == "热力图矢量图 (.svg)"
    assert all(english_words(label, "NumPy", "PyTorch", "CSV", "bfloat16", "float32", "npz", "pt", "csv", "png",
                             "svg", "safetensors") == [] for label in labels)
    dialog.deleteLater()


def test_an_edit_notice_is_chinese(window, qtbot):
    i18n.set_language("zh")
    tools = window.edit_tools
    dialog = tools.open_dialog()
    dialog.choose("set", "row", 0, 0)
    dialog.value.setText("0")
    assert dialog.apply()
    shown = window.message_bar.text()
    assert shown == "src.embed：第 0 行设为 0。“继续”会在此基础上运行剩余的前向过程。"
    assert english_words(shown, "src.embed") == []
    i18n.set_language("en")
    qtbot.waitUntil(lambda: window.message_bar.label.text()
                    == "src.embed: row 0 set to 0. Continue runs the rest of the pass on it.")
    dialog.close()


def test_the_adapters_note_is_chinese_and_follows_a_language_switch(make_window, qtbot):
    i18n.set_language("zh")
    window = make_window()
    notes = []
    window.ctl.message.connect(lambda m: notes.append(m) if m.topic == "input-notes" else None)
    window.start(RunInputs("notes", "cpu", {"src": "I love you", "tgt": "我 爱 你"}))
    wait_paused(qtbot, window, timeout=60000)
    qtbot.waitUntil(lambda: bool(notes))
    assert notes[0].text == "这对句子填满批次的全部 32 行，每行都用 <pad> 补齐到 10 个词元。"
    assert english_words(notes[0].text, "<pad>") == []
    i18n.set_language("en")
    assert notes[0].text == "The sentence pair fills all 32 rows of the batch, each padded to 10 tokens."
    window.ctl.close()


def test_the_overview_names_its_layers_in_chinese(window, qtbot):
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    i18n.set_language("zh")
    window.docks["overview"].toggleViewAction().trigger()  # View ▸ Overview
    panel = window.overview
    qtbot.waitUntil(lambda: panel.names == window.ctl.plan.names())
    layers, others = ([label for _, label in level] for level in panel.plot.getAxis("top")._tickLevels)
    assert layers == ["编码器层 0", "编码器层 1", "解码器层 0", "解码器层 1"]  # first where titles would overlap
    assert others == ["编码器归一化", "目标端嵌入 + 位置编码", "解码器归一化",
                      "lm_head → 对数几率"]  # the module name as the adapter gives it, then what it makes
    assert panel.per_stage.text() != "Per stage:"
    i18n.set_language("en")
    qtbot.waitUntil(lambda: panel.per_stage.text() == "Per stage:")
    assert [label for _, label in panel.plot.getAxis("top")._tickLevels[0]][:2] == ["Encoder layer 0",
                                                                                    "Encoder layer 1"]


def test_the_windows_own_message_is_said_again_in_the_new_language(window, qtbot, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a snapshot")
    window.snapshots.drop([str(notes)])  # what dropping a text file on the window does
    english = "Drop a recorded pass (.safetensors, .npz, .pt) on the window to open it."
    assert window.message_bar.label.text() == english
    i18n.set_language("zh")
    qtbot.waitUntil(lambda: window.message_bar.label.text() != english)
    shown = window.message_bar.label.text()
    assert english_words(shown, ".safetensors", ".npz", ".pt") == [] and shown == window.message_bar.text()
    assert shown in window.message_bar.label.toolTip().replace("\xa0", " ")  # the tooltip (whole sentence) too
    i18n.set_language("en")
    qtbot.waitUntil(lambda: window.message_bar.label.text() == english)


def test_a_mismatch_names_its_known_cause_in_chinese(qapp):
    from tfdebug.adapters.base import Verification
    from tfdebug.adapters.torch_nn.padding import UNMASKED_MEMORY

    mismatch = Verification(max_abs_diff=0.5, tolerance=1e-5, cause=UNMASKED_MEMORY)
    english = mismatch.describe()
    assert english.endswith("Pass memory_key_padding_mask too.") and i18n.verification_text(mismatch) == english
    i18n.set_language("zh")
    shown = i18n.verification_text(mismatch)
    assert shown.startswith("不一致：与原始模型相比 max |Δ| = 5.0e-01（容差 1e-05）。解码器读取了编码器中被填充的行")
    assert shown.endswith("请同时传入 memory_key_padding_mask。")
    assert english_words(shown, "max", "src_key_padding_mask", "memory_key_padding_mask", "torch", "tfdebug") == []


# Words that are names in every language: the model and device, stage and kind names, symbols.
NAMES = ("finfo.min", "LayerNorm", "RMSNorm", "Softmax", "Dropout", "FFN", "English",
         "random", "cpu", "lm_head", "logits", "I love you", "KV", "KB", "kB", "MB", "GB",
         "Ctrl", "float32", "bfloat16", "float16")  # sizes in any unit the free memory gives; key names as the
# keyboard shows them; dtype names as torch writes them


def test_the_chinese_window_at_a_masked_stage_has_no_english_words_left(window, qtbot):
    """What a person reads on screen (labels, buttons, dock titles, tabs, menus and their items) is
    Chinese; only names, symbols and the typed sentence stay as they are."""
    from PySide6.QtWidgets import QAbstractButton, QDockWidget, QLabel, QMenu, QTabBar

    run_to_stage(window, qtbot, "dec.0.self_attn.masked")
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())  # every panel drew it
    i18n.set_language("zh")
    qtbot.waitUntil(lambda: window.docks["navigator"].windowTitle() == "阶段")
    qtbot.waitUntil(lambda: "掩码" in window.explain_panel.plain_text())
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())  # heads redrawn in Chinese
    shown = [w.text() for w in window.findChildren(QLabel) + window.findChildren(QAbstractButton) if w.isVisible()]
    shown += [d.windowTitle() for d in window.findChildren(QDockWidget)]
    shown += [b.tabText(i) for b in window.findChildren(QTabBar) if b.isVisible() for i in range(b.count())]
    shown += [m.title() for m in window.findChildren(QMenu)]
    shown += [a.text() for m in window.findChildren(QMenu) for a in m.actions()]
    stage_name = re.compile(r"\b[a-z_]+(\.[a-z_0-9]+)+\b")
    left = {text: english_words(stage_name.sub(" ", text), *NAMES) for text in shown}
    english = {text: words for text, words in left.items() if words}
    assert not english, "\n".join(f"{text!r}: {words}" for text, words in english.items())


def test_a_generation_in_chinese_names_its_steps_and_its_dock_follows_a_switch(make_window, qtbot):
    from tfdebug.models.sampling import DecodingSettings

    window = make_window()
    window.ctl.run.set_generation(DecodingSettings(max_new_tokens=2))
    window.start(RunInputs("demo", "cpu", {"src": "I love you", "tgt": ""}))
    wait_paused(qtbot, window, "gen.0.src.embed")
    window.ctl.steps.run_to("gen.1.dec.0.self_attn.probs")
    wait_paused(qtbot, window, "gen.1.dec.0.self_attn.probs")
    panel = window.generation_panel
    qtbot.waitUntil(lambda: panel.summary.text().startswith("Step 1"))
    i18n.set_language("zh")
    tree = window.navigator.tree
    qtbot.waitUntil(lambda: [tree.topLevelItem(i).text(1) for i in range(2)] == ["生成步 0", "生成步 1"])
    qtbot.waitUntil(lambda: panel.summary.text().startswith("第 1 步"))
    assert panel.layer_label.text() == "层" and english_words(panel.summary.text()) == []
    window.ctl.close()
