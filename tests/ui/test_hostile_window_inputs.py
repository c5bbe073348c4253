"""The window's own inputs and outputs, hostile: a snapshot truncated while shown, damaged settings,
a CSV that is a FIFO or /dev/zero, a screenshot over its input, through a link or into a pipe."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.user_actions import click_stage, open_snapshot, press
from tfdebug import cli
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.edits import read_csv_values
from tfdebug.core.errors import EditError, ExportError
from tfdebug.io.atomic import leftover_temp_files
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot
from tfdebug.ui.app import save_picture
from tfdebug.ui.features.edit.dialog import read_text


@pytest.fixture()
def snapshot(loaded, tmp_path):
    path = tmp_path / "pass.safetensors"
    save_snapshot(Recording.from_session(DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT})), path)
    return path


def test_a_snapshot_truncated_while_shown_is_said_and_what_was_shown_stays(make_window, snapshot, qtbot):
    window = make_window()
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    window.actions_by_id["tfdebug.step.next"].trigger()
    wait_paused(qtbot, window, "src.pe")
    shown = window.ctl.current.tensor.clone()
    qtbot.waitUntil(lambda: not window.ctl.shown.reading_ahead())  # the next stage is read ahead, before the change
    os.truncate(snapshot, 300)  # what `cp other.safetensors FILE` does first: a mapped read would SIGBUS
    # A stage far from the shown one is read now, from the changed file.
    click_stage(window, qtbot, "enc.0.ffn.out")
    qtbot.waitUntil(lambda: window.ctl.selected_stage == "enc.0.ffn.out")
    press(window, Qt.Key_F10, Qt.ControlModifier)  # Run to Stage
    qtbot.waitUntil(lambda: window.last_error is not None and "changed on disk" in window.last_error, timeout=10000)
    # It keeps what it has shown, and stays up.
    assert window.ctl.current.name == "src.pe" and window.isVisible()
    assert (window.ctl.current.tensor == shown).all()


def test_damaged_window_settings_are_dropped_and_said_once(make_window, settings):
    settings.setValue("window/geometry", "not a geometry")
    settings.setValue("window/state", 12)
    settings.setValue("input/recent", "[" * 20_000 + "]" * 20_000)
    settings.setValue("input/last", "{not json")
    settings.sync()
    window = make_window()
    message = window.message_bar.current
    assert message is not None and message.level == "warning"
    for key in ("window/geometry", "window/state", "input/recent", "input/last"):
        assert key in message.text and settings.value(key) is None
    window.close()
    again = make_window()  # saved cleanly on close: nothing to say the next time
    assert again.message_bar.current is None or "damaged" not in again.message_bar.current.text


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder", "huge"])
def test_fill_from_csv_refuses_files_it_cannot_read_bounded(tmp_path, kind):
    path = tmp_path / "values.csv"
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading used to block the GUI thread forever
    elif kind == "dev-zero":
        os.symlink("/dev/zero", path)  # its size reads 0; reading it never ends
    elif kind == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as f:
            f.truncate(1 << 30)
    with pytest.raises(EditError):
        read_text(str(path))


def test_a_csv_field_past_the_csv_modules_limit_is_one_sentence():
    with pytest.raises(EditError, match="cannot be read as CSV"):
        read_csv_values("1," + "9" * 200_000 + "\n", (1, 2))


def test_a_csv_with_a_byte_order_mark_still_reads(tmp_path):
    path = tmp_path / "v.csv"
    path.write_bytes("\ufeff1,2\n3,4\n".encode("utf-8"))
    assert read_csv_values(read_text(str(path)), (2, 2)) == ((1.0, 2.0), (3.0, 4.0))


def _pixmap(qtbot):
    picture = QPixmap(8, 8)
    picture.fill()
    return picture


def test_a_screenshot_is_written_atomically_and_never_over_what_it_reads(qtbot, snapshot, tmp_path):
    before = snapshot.read_bytes()
    with pytest.raises(ExportError, match="is the file being read"):
        save_picture(_pixmap(qtbot), snapshot, inputs=(str(snapshot),))
    os.symlink(snapshot, tmp_path / "link.png")
    with pytest.raises(ExportError, match="symbolic link"):
        save_picture(_pixmap(qtbot), tmp_path / "link.png", inputs=(str(snapshot),))
    os.mkfifo(tmp_path / "pipe.png")
    with pytest.raises(ExportError, match="not a regular file"):
        save_picture(_pixmap(qtbot), tmp_path / "pipe.png")
    assert snapshot.read_bytes() == before
    save_picture(_pixmap(qtbot), tmp_path / "ok.png")
    assert (tmp_path / "ok.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not leftover_temp_files(tmp_path)


def test_open_with_a_screenshot_over_its_snapshot_is_refused_before_the_window(snapshot, capsys, tmp_path):
    before = snapshot.read_bytes()
    os.symlink(snapshot, tmp_path / "same.png")
    for target in (snapshot, tmp_path / "same.png"):
        assert cli.main(["open", str(snapshot), "--screenshot", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("being read" in err or "symbolic link" in err)
    assert snapshot.read_bytes() == before


def test_a_native_panic_in_background_work_reaches_the_window_as_a_failure(qtbot):
    from tfdebug.ui.workers.jobs import Job

    class PanicException(BaseException):  # what pyo3 raises for a Rust panic (a tokenizer's regex)
        pass

    def work(job):
        raise PanicException("regex panicked")

    job = Job(work, name="panics")
    with qtbot.waitSignal(job.failed, timeout=10000) as failed:
        job.start()
    assert "PanicException: regex panicked" in failed.args[1]
    assert job.wait(5)
