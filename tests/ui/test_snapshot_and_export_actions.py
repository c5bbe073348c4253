"""File menu: Open…, Open Recent, drag and drop, Export… with its progress dialog and Cancel, Quit."""

import time

import numpy as np
import pytest
import torch
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QPushButton

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.user_actions import open_snapshot, press, type_into
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.io import exports
from tfdebug.io.atomic import leftover_temp_files
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot
from tfdebug.ui.features.export.tools import CANCELLED
from tfdebug.ui.actions.snapshots import recent_files
from tfdebug.ui.features.export.dialog import ExportDialog


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
    window.actions_by_id["tfdebug.file.open"].trigger()
    shows_replay(qtbot, window)
    # Read when shown, or ahead when next to the shown stage (tests/ui/test_replay_ahead.py).
    assert all(c.tensor is None for c in window.ctl.replayed.captures[2:])
    window.actions_by_id["tfdebug.step.next"].trigger()
    wait_paused(qtbot, window, "src.pe")
    assert window.ctl.replayed.captures[1].tensor is not None
    assert not window.actions_by_id["tfdebug.step.restart"].isEnabled()
    assert recent_files(window.settings) == [str(snapshot.resolve())]
    # The (disabled) input bar shows the recorded sentence, not what it held before.
    assert (window.input_bar.field("src").text(), window.input_bar.field("tgt").text()) == ("i love you", TGT)
    assert not window.input_bar.field("src").isEnabled()


def test_a_bad_file_shows_its_sentence_and_the_app_stays_up(make_window, snapshot, qtbot, tmp_path):
    window = make_window()
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(snapshot.read_bytes()[:1000])
    assert not open_snapshot(qtbot, window, bad)
    assert "truncated" in window.last_error and window.message_bar.current is not None
    assert recent_files(window.settings) == []
    assert open_snapshot(qtbot, window, snapshot)  # still working
    shows_replay(qtbot, window)


def test_the_file_is_read_off_the_ui_thread_and_closing_meanwhile_is_clean(make_window, snapshot, qtbot,
                                                                          monkeypatch):
    """A large snapshot's manifest and first stage are read by a worker: the window stays live
    (busy, its pass untouched) until the replay is ready; closing it meanwhile leaves nothing open."""
    import threading

    from tfdebug.ui.actions import snapshots as snapshot_actions

    gate, threads = threading.Event(), []
    read = snapshot_actions._read

    def slow_read(path):
        threads.append(threading.current_thread())
        gate.wait(10)
        return read(path)
    monkeypatch.setattr(snapshot_actions, "_read", slow_read)
    window = make_window()
    window.open_snapshot(str(snapshot))  # returns at once
    assert window.ctl.loader.busy and window.ctl.replayed is None
    qtbot.waitUntil(lambda: len(threads) == 1)
    assert threads[0] is not threading.main_thread()
    qtbot.wait(50)  # the event loop turns while the file is read
    assert window.ctl.loader.busy and window.ctl.stepper is None
    window.open_snapshot(str(snapshot))  # again, impatient: said, not queued behind the first
    assert window.message_bar.text() == ("A model or snapshot is still loading: open pass.safetensors once it "
                                         "is on screen.")
    assert len(threads) == 1
    gate.set()
    shows_replay(qtbot, window)
    assert not window.ctl.loader.busy
    # Closed while reading: the job is abandoned, the window closes, no replay is opened behind it.
    gate.clear()
    second = make_window()
    second.open_snapshot(str(snapshot))
    qtbot.waitUntil(lambda: len(threads) == 2)
    gate.set()
    second.close()
    assert second.ctl.replayed is None and second.ctl.loader.load_job.wait(5)


def test_open_recent_is_remembered_across_windows(make_window, snapshot, settings, qtbot):
    first = make_window()
    first.open_snapshot(str(snapshot))
    shows_replay(qtbot, first)
    first.close()
    second = make_window(settings)
    menu = second.recent_menu
    menu.aboutToShow.emit()
    entries = [a for a in menu.actions() if a.data()]
    assert [a.data() for a in entries] == [str(snapshot.resolve())]
    entries[0].trigger()
    shows_replay(qtbot, second)
    menu.aboutToShow.emit()
    clear = next(a for a in menu.actions() if a.objectName() == "tfdebug.file.clear_recent")
    clear.trigger()
    assert recent_files(settings) == []
    menu.aboutToShow.emit()
    assert [a.text() for a in menu.actions()] == ["No recent snapshots"]


def test_the_snapshot_file_is_released_when_a_live_pass_replaces_it(make_window, snapshot, qtbot):
    window = make_window()
    window.open_snapshot(str(snapshot))
    shows_replay(qtbot, window)
    recording = window.ctl.replayed
    closed = []
    recording.closer = lambda: closed.append(True)
    window.input_bar.set_values("random", "cpu", {"src": SRC, "tgt": TGT})
    press(window, Qt.Key_N, Qt.ControlModifier)  # Debug ▸ New Live Pass: the input bar's pair, run live
    qtbot.waitUntil(lambda: window.ctl.is_live, timeout=30000)
    wait_paused(qtbot, window, "src.embed")
    assert closed == [True] and window.ctl.replayed is None
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
    assert "Drop a recorded pass (.safetensors, .npz, .pt)" in window.last_error
    _drop(window, [snapshot])
    shows_replay(qtbot, window)


@pytest.mark.parametrize("suffix", [".npz", ".pt"])
def test_file_open_reads_every_pass_format_the_app_writes(make_window, snapshot, qtbot, tmp_path, suffix):
    """An export reopens through File ▸ Open (dropped here) as Compare and `tfdebug diff` read it."""
    out = tmp_path / f"pass{suffix}"
    with load_export(snapshot) as original:
        export_pass(original, out)
        names = original.names()
    window = make_window()
    _drop(window, [out])
    shows_replay(qtbot, window)
    assert [c.name for c in window.ctl.plan] == names


def test_the_open_dialog_offers_every_pass_format():
    from tfdebug.ui.actions.snapshots import pass_filter

    assert pass_filter().startswith("Recorded passes (*.safetensors *.npz *.pt)")


def wait_job(qtbot, job, timeout=15000):
    qtbot.waitUntil(lambda: job.done, timeout=timeout)
    job.wait(5)


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".pt"])
def test_export_a_replayed_snapshot(make_window, snapshot, qtbot, tmp_path, suffix):
    window = make_window()
    window.open_snapshot(str(snapshot))
    shows_replay(qtbot, window)
    out = tmp_path / f"out{suffix}"
    job = window.exports.start(str(out))
    wait_job(qtbot, job)
    assert window.exports.outcome is None
    with load_export(out) as back, load_export(snapshot) as original:
        assert back.manifest() == original.manifest()
        for a, b in zip(original.captures, back.captures):
            assert torch.equal(original.tensor(a), back.tensor(b))


def test_export_of_a_live_pass_says_what_it_holds(window, qtbot, tmp_path):
    recording, note = window.ctl.recording()
    assert recording.names() == ["src.embed"] and "run 1 of 117 stages" in note
    window.actions_by_id["tfdebug.step.continue"].trigger()
    qtbot.waitUntil(lambda: window.stepper.state == "finished", timeout=10000)
    recording, note = window.ctl.recording()
    assert len(recording.captures) == 117 and note == ""
    job = window.exports.start(str(tmp_path / "live.npz"), stages=["logits", "enc.0.attn.probs"])
    wait_job(qtbot, job)
    with np.load(tmp_path / "live.npz", allow_pickle=False) as npz:
        assert set(npz.files) == {"enc.0.attn.probs", "logits", "__tfdebug__"}


def test_export_shows_progress_and_cancel_leaves_nothing(make_window, snapshot, qtbot, tmp_path, monkeypatch):
    window = make_window()
    window.open_snapshot(str(snapshot))
    shows_replay(qtbot, window)
    real = exports.export_pass  # the source's export writes through it (sessions.local_source)

    def slow(recording, path, stages, fmt, progress):
        return real(recording, path, stages, fmt, lambda d, t: (time.sleep(0.05), progress(d, t))[1])

    monkeypatch.setattr(exports, "export_pass", slow)
    out = tmp_path / "out.npz"
    out.write_bytes(b"older export")
    job = window.exports.start(str(out))
    dialog = window.exports.dialog
    qtbot.waitUntil(lambda: dialog.isVisible() and dialog.value() > 0, timeout=10000)
    assert window.exports.start(str(tmp_path / "second.npz")) is None  # one at a time
    assert "already running" in window.last_error
    dialog.findChild(QPushButton).click()  # the dialog's Cancel button
    wait_job(qtbot, job)
    qtbot.waitUntil(lambda: window.exports.outcome == CANCELLED)
    assert not dialog.isVisible()
    assert out.read_bytes() == b"older export"
    assert not leftover_temp_files(tmp_path) and not (tmp_path / "second.npz").exists()


def test_export_errors_are_shown(make_window, snapshot, qtbot, tmp_path):
    window = make_window()
    assert window.exports.start(str(tmp_path / "x.npz")) is None
    assert "no recorded pass" in window.last_error
    window.open_snapshot(str(snapshot))
    shows_replay(qtbot, window)
    folder = tmp_path / "taken.pt"
    folder.mkdir()
    job = window.exports.start(str(folder))
    wait_job(qtbot, job)
    qtbot.waitUntil(lambda: "is a folder" in window.last_error)  # the failure is reported on the GUI thread
    assert window.exports.start(str(tmp_path / "x.docx")) is None
    assert "choose a .safetensors" in window.last_error


def test_export_dialog_picks_format_and_stages(make_window, snapshot, qtbot, tmp_path, monkeypatch):
    window = make_window()
    window.open_snapshot(str(snapshot))
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
    window.actions_by_id["tfdebug.file.export"].trigger()
    job = window.exports.job
    wait_job(qtbot, job)
    data = torch.load(target, weights_only=True)
    assert sorted(k for k in data if k != "__tfdebug__") == ["logits", "src.embed"]  # current stage pre-checked


@pytest.mark.parametrize("suffix", [".csv", ".png"])
def test_heatmap_exports(window, qtbot, tmp_path, suffix):
    window.ctl.steps.run_to("enc.0.attn.probs")
    wait_paused(qtbot, window, "enc.0.attn.probs")
    out = tmp_path / f"heat{suffix}"
    assert window.exports.start(str(out)) is None
    assert out.exists() and out.stat().st_size > 0, window.last_error
    assert not leftover_temp_files(tmp_path)
    if suffix == ".csv":
        lines = out.read_text(encoding="utf-8").splitlines()
        assert lines[0] == ",i,love,you" and lines[1].startswith("i,")
    if suffix == ".png":
        assert out.read_bytes()[:4] == b"\x89PNG"


def test_svg_export_writes_the_heatmap(window, qtbot, tmp_path):
    out = tmp_path / "heat.svg"
    assert window.exports.export_view(str(out), ".svg")
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "<image" in text  # the heatmap cells
    assert "love" in text  # a token tick label, kept as text
    assert not leftover_temp_files(tmp_path)


def test_heatmap_export_needs_a_shown_slice(make_window, tmp_path):
    window = make_window()
    assert window.exports.start(str(tmp_path / "heat.csv")) is None
    assert "No heatmap is shown" in window.last_error


def test_quit_in_the_file_menu_closes_the_window(make_window, qtbot):
    window = make_window()
    file_menu = window.file_menu
    ids = [a.objectName() for a in file_menu.actions() if a.objectName()]
    assert ids[:2] == ["tfdebug.session.new", "tfdebug.file.open"] and ids[-1] == "tfdebug.file.quit"
    assert "tfdebug.file.export" in ids
    window.actions_by_id["tfdebug.file.quit"].trigger()
    qtbot.waitUntil(lambda: not window.isVisible())


def test_breakpoints_menu_items_are_registry_actions(window, qtbot):
    from tfdebug.core.breakpoints import Breakpoint

    window.ctl.breakpoints.set(Breakpoint.on_kind("softmax"), True)
    assert window.ctl.breakpoints.points
    window.actions_by_id["tfdebug.breakpoints.clear"].trigger()
    assert not window.ctl.breakpoints.points
    window.actions_by_id["tfdebug.breakpoints.conditions"].trigger()
    dialog = window.tools.conditions.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.reject()


def test_csv_of_a_masked_softmax_holds_its_zeros(window, qtbot, tmp_path):
    """The heatmap draws a softmax's masked cells as masked; the CSV holds the tensor's 0 there."""
    window.ctl.steps.run_to("dec.0.self_attn.probs")
    wait_paused(qtbot, window, "dec.0.self_attn.probs")
    out = tmp_path / "probs.csv"
    assert window.exports.export_view(str(out), ".csv")
    rows = [line.split(",")[1:] for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert rows[0][1:] == ["0", "0", "0"] and "-inf" not in out.read_text()
    assert abs(sum(float(x) for x in rows[3]) - 1) < 1e-5


def test_an_exported_snapshot_reopens_from_open_recent(window, qtbot, tmp_path, monkeypatch):
    target = tmp_path / "mine.safetensors"

    def answer(dialog):
        type_into(qtbot, dialog.path_edit, str(target))
        return QDialog.Accepted

    press(window, Qt.Key_F5)  # Continue to the end
    qtbot.waitUntil(lambda: window.stepper.state == "finished", timeout=10000)
    monkeypatch.setattr(ExportDialog, "exec", answer)
    window.actions_by_id["tfdebug.file.export"].trigger()  # File ▸ Export…
    qtbot.waitUntil(lambda: window.message_bar.text() == f"Exported 117 stages to {target}", timeout=15000)
    window.recent_menu.aboutToShow.emit()  # File ▸ Open Recent
    entry = next(a for a in window.recent_menu.actions() if a.data() == str(target.resolve()))
    assert entry.text() == "mine.safetensors"
    entry.trigger()
    shows_replay(qtbot, window)
    assert len(window.ctl.replayed.captures) == 117
