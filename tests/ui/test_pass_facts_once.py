"""The pass's facts are kept once, by its source: the controller reads its plan, layout, tokens, title, model,
device and precision from it and holds no copy (issue 49: they were copied out of the source and so kept twice)."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press


def test_the_controller_reads_the_pass_from_its_source_and_keeps_no_copy(window, qtbot):
    ctl = window.ctl
    assert not {"plan", "layout", "_tokens", "title", "model_name", "device", "dtype"} & set(vars(ctl))
    source = ctl.source
    assert ctl.plan is source.plan and ctl.layout is source.layout and ctl.tokens == source.tokens
    assert (ctl.title, ctl.model_name, ctl.device, ctl.dtype) == (source.title, source.model_name, source.device,
                                                                  source.dtype)
    assert window.status_device.text() == " · ".join(t for t in (source.device, source.dtype) if t)
    press(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # Restart: the same pass, the same facts
    wait_paused(qtbot, window, "src.embed")
    assert ctl.plan is ctl.source.plan and ctl.title == ctl.source.title


def test_with_no_pass_every_fact_is_empty(qapp):
    from tfdebug.ui.state.controller import DebugController

    ctl = DebugController()
    try:
        assert (len(ctl.plan), ctl.tokens, ctl.title, ctl.model_name, ctl.device, ctl.dtype) == (0, {}, "", "", "", "")
    finally:
        ctl.shutdown()
