"""The window `tfdebug` opens before torch is imported (tfdebug.ui.app.start_behind): shown on the CPU alone, it
says it is loading torch, then lists this machine's GPUs (a faked machine with two) and loads the model."""

import torch

from tests.ui.conftest import SRC, TGT, wait_paused
from tfdebug.core.view import RunInputs
from tfdebug.ui.app import start_behind

GIB = 2**30


def test_the_window_loads_torch_behind_itself_then_lists_the_gpus_and_runs(qtbot, settings, monkeypatch):
    from tfdebug.ui.shell.window import MainWindow

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda index=None: ((70, 3)[index] * GIB, 80 * GIB))
    window = MainWindow(settings=settings, devices=["cpu"])  # as tfdebug.ui.app opens it
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    box = window.input_bar.device
    assert [box.itemData(i) for i in range(box.count())] == ["cpu"]
    seen = []

    def then(devices):
        seen.append(devices)
        window.start(RunInputs("random", "cpu", {"src": SRC, "tgt": TGT}))
        window.update_status()
        seen.append(window.status_state.text())

    start_behind(window, then)
    window.update_status()
    assert window.ctl.loader.busy and window.status_state.text() == "loading torch…"
    assert not window.actions_by_id["tfdebug.session.run"].isEnabled()  # nothing to run until torch is there
    qtbot.waitUntil(lambda: len(seen) == 2, timeout=60000)
    assert seen == [["cpu", "cuda:0", "cuda:1"], "loading the model…"]
    assert [box.itemText(i) for i in range(box.count())] == ["cpu", "cuda:0 · 70.0 GB free", "cuda:1 · 3.0 GB free"]
    assert box.device() == "cpu"  # the one chosen stays chosen
    wait_paused(qtbot, window, "src.embed")
    assert window.status_state.text() == "paused" and window.starting is None
    window.ctl.close()
