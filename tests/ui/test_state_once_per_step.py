"""F10 announces the window's state once (issue 49, Deliver 3): `state_changed` (the actions' re-check, the
navigator, the map, the status line …) fires with the stepper's event that shows where the step went, not also
for the command that asked for it, on a live pass, in its history and in a replay."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.test_replay_ahead import idle, snapshot  # noqa: F401  (the snapshot fixture)
from tests.ui.user_actions import open_snapshot, press


def announcements_of_one_step(window, qtbot, name: str, key=Qt.Key_F10, modifier=Qt.NoModifier) -> int:
    heard: list[bool] = []

    def hear() -> None:
        heard.append(True)
    window.ctl.state_changed.connect(hear)
    press(window, key, modifier)
    wait_paused(qtbot, window, name)
    qtbot.wait(200)  # longer than the 50 ms a command's announcement may wait for its event
    window.ctl.state_changed.disconnect(hear)
    return len(heard)


def test_a_live_step_and_a_step_through_its_history_announce_once(window, qtbot):
    assert announcements_of_one_step(window, qtbot, "src.pe") == 1
    assert announcements_of_one_step(window, qtbot, "src.embed", Qt.Key_F10, Qt.ShiftModifier) == 1
    assert announcements_of_one_step(window, qtbot, "src.pe") == 1


def test_a_replayed_step_announces_once(window, qtbot, snapshot):  # noqa: F811
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window)
    idle(qtbot, window)
    assert announcements_of_one_step(window, qtbot, "src.pe") == 1
    idle(qtbot, window)
    assert announcements_of_one_step(window, qtbot, "src.pos") == 1
