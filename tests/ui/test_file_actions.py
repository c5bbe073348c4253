"""File menu: Open…, Open Recent, drag and drop, Export… with its progress dialog and Cancel."""

import time

import numpy as np
import pytest
import torch
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QPushButton

from tests.ui.conftest import SRC, TGT, wait_paused
from tfdebug.io.atomic import leftover_temp_files
from tfdebug.io.exports import load_export
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.adapters.session import DebugSession
from tfdebug.ui import file_actions
from tfdebug.ui.export_dialog import ExportDialog


@pytest.fixture()
def snapshot(loaded, tmp_path):
    path = tmp_path / "pass.safetensors"
    save_snapshot(Recording.from_session(DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT})), path)
    return path


def shows_replay(qtbot, window, name="src.embed"):
    wait_paused(qtbot, window, name)
    assert not window.stepper.is_live
    assert window.session is None


def test_open_action_shows_the_snapshot_in_replay(make_window, snapshot, qtbot, monkeypatch):
    window = make_window()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(snapshot), "")))
    window.file_actions.open_action.trigger()
    shows_replay(qtbot, window)
    assert window.file_actions.recording.captures[1].tensor is None  # read only when shown
    window.actions_by_id["tfdebug.step.next"].trigger()
    wait_paused(qtbot, window, "src.pos")
    assert window.file_actions.recording.captures[1].tensor is not None
    assert not window.actions_by_id["tfdebug.step.restart"].isEnabled()
    assert file_actions.recent_files(window.settings) == [str(snapshot.resolve())]
    # The (disabled) input bar shows the recorded sentence, not what it held before.
    assert (window.input_bar.field("src").text(), window.input_bar.field("tgt").text()) == ("i love you", TGT)
    assert not window.input_bar.field("src").isEnabled()


def test_a_bad_file_shows_its_sentence_and_the_app_stays_up(make_window, snapshot, qtbot, tmp_path):
    window = make_window()
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(snapshot.read_bytes()[:1000])
    assert not file_actions.open_snapshot(window, str(bad))
    assert "truncated" in window.last_error and window.message_bar.current is not None
    assert file_actions.recent_files(window.settings) == []
    assert file_actions.open_snapshot(window, str(snapshot))  # still working
    shows_replay(qtbot, window)


def test_open_recent_is_remembered_across_windows(make_window, snapshot, settings, qtbot):
    first = make_window()
    file_actions.open_snapshot(first, str(snapshot))
    shows_replay(qtbot, first)
    first.close()
    second = make_window(settings)
    menu = second.file_actions.recent_menu
    menu.aboutToShow.emit()
    entries = [a for a in menu.actions() if a.data()]
    assert [a.data() for a in entries] == [str(snapshot.resolve())]
    entries[0].trigger()
    shows_replay(qtbot, second)
    second.file_actions.clear_recent()
    assert file_actions.recent_files(settings) == []


def test_the_snapshot_file_is_released_when_a_live_pass_replaces_it(make_window, snapshot, loaded, qtbot):
    window = make_window()
    file_actions.open_snapshot(window, str(snapshot))
    shows_replay(qtbot, window)
    recording = window.file_actions.recording
    closed = []
    recording.closer = lambda: closed.append(True)
    window.ctl.set_session(DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT}))
    wait_paused(qtbot, window, "src.embed")
    assert closed == [True] and window.file_actions.recording is None
    window.ctl.close()


def _drop(window, paths):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPoint(window.width() // 2, window.height() // 2)
    enter = QDragEnterEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(window, drop)


def test_drag_and_drop_opens_a_snapshot(make_window, snapshot, qtbot, tmp_path):
    window = make_window()
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    _drop(window, [other])
    assert "Drop a .safetensors" in window.last_error
    _drop(window, [snapshot])
    shows_replay(qtbot, window)


def wait_job(qtbot, job, timeout=15000):
    qtbot.waitUntil(lambda: job.done, timeout=timeout)
    job.wait(5)


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".pt"])
def test_export_a_replayed_snapshot(make_window, snapshot, qtbot, tmp_path, suffix):
    window = make_window()
    file_actions.open_snapshot(window, str(snapshot))
    shows_replay(qtbot, window)
    out = tmp_path / f"out{suffix}"
    job = file_actions.start_export(window, str(out))
    wait_job(qtbot, job)
    assert job.message is None
    with load_export(out) as back, load_export(snapshot) as original:
        assert back.manifest() == original.manifest()
        for a, b in zip(original.captures, back.captures):
            assert torch.equal(original.tensor(a), back.tensor(b))


def test_export_of_a_live_pass_says_what_it_holds(window, qtbot, tmp_path):
    recording, note = file_actions.current_recording(window)
    assert recording.names() == ["src.embed"] and "run 1 of 115 stages" in note
    window.actions_by_id["tfdebug.step.continue"].trigger()
    qtbot.waitUntil(lambda: window.stepper.state == "finished", timeout=10000)
    recording, note = file_actions.current_recording(window)
    assert len(recording.captures) == 115 and note == ""
    job = file_actions.start_export(window, str(tmp_path / "live.npz"), stages=["logits", "enc.0.attn.probs"])
    wait_job(qtbot, job)
    with np.load(tmp_path / "live.npz", allow_pickle=False) as npz:
        assert set(npz.files) == {"enc.0.attn.probs", "logits", "__tfdebug__"}


def test_export_shows_progress_and_cancel_leaves_nothing(make_window, snapshot, qtbot, tmp_path, monkeypatch):
    window = make_window()
    file_actions.open_snapshot(window, str(snapshot))
    shows_replay(qtbot, window)
    real = file_actions.export_pass

    def slow(recording, path, stages, fmt, progress):
        return real(recording, path, stages, fmt, lambda d, t: (time.sleep(0.05), progress(d, t))[1])

    monkeypatch.setattr(file_actions, "export_pass", slow)
    out = tmp_path / "out.npz"
    out.write_bytes(b"older export")
    job = file_actions.start_export(window, str(out))
    qtbot.waitUntil(lambda: job.dialog.isVisible() and job.dialog.value() > 0, timeout=10000)
    assert file_actions.start_export(window, str(tmp_path / "second.npz")) is None  # one at a time
    assert "already running" in window.last_error
    job.dialog.findChild(QPushButton).click()  # the dialog's Cancel button
    wait_job(qtbot, job)
    assert job.message == file_actions.CANCELLED and not job.dialog.isVisible()
    assert out.read_bytes() == b"older export"
    assert not leftover_temp_files(tmp_path) and not (tmp_path / "second.npz").exists()


def test_export_errors_are_shown(make_window, snapshot, qtbot, tmp_path):
    window = make_window()
    assert file_actions.start_export(window, str(tmp_path / "x.npz")) is None
    assert "no recorded pass" in window.last_error
    file_actions.open_snapshot(window, str(snapshot))
    shows_replay(qtbot, window)
    folder = tmp_path / "taken.pt"
    folder.mkdir()
    job = file_actions.start_export(window, str(folder))
    wait_job(qtbot, job)
    assert "is a folder" in window.last_error
    assert file_actions.start_export(window, str(tmp_path / "x.docx")) is None
    assert "choose a .safetensors" in window.last_error


def test_export_dialog_picks_format_and_stages(make_window, snapshot, qtbot, tmp_path, monkeypatch):
    window = make_window()
    file_actions.open_snapshot(window, str(snapshot))
    shows_replay(qtbot, window)
    target = tmp_path / "chosen.pt"

    def answer(dialog):
        dialog.set_format(".pt")
        assert dialog.path_edit.text().endswith(".pt")
        dialog.path_edit.setText(str(target))
        dialog.selected.setChecked(True)
        for i in range(dialog.stage_list.count()):
            item = dialog.stage_list.item(i)
            if item.text() == "logits":
                item.setCheckState(Qt.Checked)
        return QDialog.Accepted

    monkeypatch.setattr(ExportDialog, "exec", answer)
    window.file_actions.export_action.trigger()
    job = window.file_actions.job
    wait_job(qtbot, job)
    data = torch.load(target, weights_only=True)
    assert sorted(k for k in data if k != "__tfdebug__") == ["logits", "src.embed"]  # current stage pre-checked


@pytest.mark.parametrize("suffix", [".csv", ".png"])
def test_heatmap_exports(window, qtbot, tmp_path, suffix):
    window.ctl.run_to("enc.0.attn.probs")
    wait_paused(qtbot, window, "enc.0.attn.probs")
    out = tmp_path / f"heat{suffix}"
    assert file_actions.start_export(window, str(out)) is None
    assert out.exists() and out.stat().st_size > 0, window.last_error
    assert not leftover_temp_files(tmp_path)
    if suffix == ".csv":
        lines = out.read_text(encoding="utf-8").splitlines()
        assert lines[0] == ",i,love,you" and lines[1].startswith("i,")
    if suffix == ".png":
        assert out.read_bytes()[:4] == b"\x89PNG"


def test_svg_export_writes_the_heatmap(window, qtbot, tmp_path):
    out = tmp_path / "heat.svg"
    assert file_actions.export_view(window, str(out), ".svg")
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "<image" in text  # the heatmap cells
    assert "love" in text  # a token tick label, kept as text
    assert not leftover_temp_files(tmp_path)


def test_heatmap_export_needs_a_shown_slice(make_window, tmp_path):
    window = make_window()
    assert file_actions.start_export(window, str(tmp_path / "heat.csv")) is None
    assert "No heatmap is shown" in window.last_error
