"""The Device box lists each GPU with the memory free on it (a faked machine with two GPUs)."""

import torch

from tfdebug.ui.widgets.device_box import DeviceBox

GIB = 2**30


def test_the_device_box_lists_gpus_with_their_free_memory(qtbot, monkeypatch):
    free = {0: 70 * GIB, 1: 3 * GIB}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda index=None: (free[index], 80 * GIB))
    box = DeviceBox(["cpu", "cuda:0", "cuda:1"])
    qtbot.addWidget(box)
    assert [box.itemText(i) for i in range(box.count())] == ["cpu", "cuda:0 · 70.0 GB free", "cuda:1 · 3.0 GB free"]
    box.set_device("cuda:1")
    assert box.device() == "cuda:1" and box.currentText() == "cuda:1 · 3.0 GB free"
    free[1] = 1 * GIB  # a model loaded since: the list says what is free when it opens
    box.showPopup()
    assert box.itemText(2) == "cuda:1 · 1.0 GB free"
    box.hidePopup()
    box.set_device("cuda:7")  # given on the command line, not here: shown, and refused by name when it loads
    assert box.device() == "cuda:7" and box.count() == 4
