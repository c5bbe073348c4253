"""Debug ▸ Check Against the Model: when a finished pass is checked against the unmodified model (issue 54).

Chosen in the menu as a person chooses it, remembered for the next launch; "never" leaves the check out and the
status bar says "not verified"; an "auto" whose second pass has no room checks each layer's attention in the pass
instead, as "attention" always does; "always" checks whatever is free."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from tests.adapters import hf_tiny
from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press
from tfdebug.ui.features.check.menu import SETTING_KEY
from tfdebug.ui.models.run import RunModel


def _choose(window, policy: str) -> None:
    menu = window.findChild(QMenu, "menu-check")
    assert menu is not None and menu in [a.menu() for a in window.debug_menu.actions() if a.menu()]
    menu.aboutToShow.emit()
    entry = next(a for a in menu.actions() if a.objectName() == f"check-{policy}")
    entry.trigger()
    assert entry.isChecked() and window.ctl.run.verify == policy


def _finish(window, qtbot, folder) -> None:
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": "I love you"})
    before = window.ctl.stepper
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run
    qtbot.waitUntil(lambda: window.ctl.stepper is not before, timeout=60000)  # a new pass, not the last one
    wait_paused(qtbot, window, timeout=60000)
    press(window, Qt.Key_F5)  # Continue to the end: the check (or its absence) follows
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=60000)


@pytest.fixture()
def llama(tmp_path):
    return hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")


def test_never_leaves_the_check_out_and_is_remembered(make_window, qtbot, settings, llama):
    window = make_window()
    assert window.ctl.run.verify == "auto"  # the default, as `tfdebug capture --verify`
    _choose(window, "never")
    _finish(window, qtbot, llama)
    qtbot.waitUntil(lambda: "not verified" in window.status_model.text(), timeout=10000)
    qtbot.wait(300)
    assert window.ctl.loader.verification is None and "is off" in window.ctl.loader.unverified
    assert settings.value(SETTING_KEY) == "never"
    window.ctl.close()
    again = make_window()  # the next launch, on the same settings
    assert again.ctl.run.verify == "never"
    menu = again.findChild(QMenu, "menu-check")
    assert [a.objectName() for a in menu.actions() if a.isChecked()] == ["check-never"]


def test_auto_checks_attention_in_the_pass_where_the_second_does_not_fit_and_always_runs_it(make_window, qtbot, llama,
                                                                                             monkeypatch):
    import tfdebug.sessions.peak as peak

    monkeypatch.setattr(peak, "free_memory", lambda device: 1 << 10)  # 1 KiB free: no second pass fits
    window = make_window()
    _finish(window, qtbot, llama)
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None, timeout=10000)
    assert window.ctl.loader.verification.scope == "attention" and window.ctl.loader.verification.ok
    qtbot.waitUntil(lambda: " · verified" in window.status_model.text(), timeout=10000)
    _choose(window, "always")
    _finish(window, qtbot, llama)
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None, timeout=60000)
    assert window.ctl.loader.verification.ok and not window.ctl.loader.unverified
    qtbot.waitUntil(lambda: " · verified" in window.status_model.text(), timeout=10000)
    window.ctl.close()


def test_a_stored_choice_that_is_not_one_reads_as_auto(make_window, settings):
    settings.setValue(SETTING_KEY, "sometimes")
    assert make_window().ctl.run.verify == "auto"


def test_the_run_model_refuses_an_unknown_policy_and_emits_once():
    run, seen = RunModel(), []
    run.verify_changed.connect(seen.append)
    run.set_verify("never")
    run.set_verify("never")
    assert seen == ["never"]
    with pytest.raises(ValueError, match="unknown check policy"):
        run.set_verify("sometimes")


def test_attention_only_is_checked_in_the_pass_with_no_second_forward(make_window, qtbot, llama, monkeypatch):
    """The fourth choice: each layer's attention checked against the model's own function as the pass runs; the
    verdict is there when the pass ends, and the whole check (a second forward) never runs."""
    import tfdebug.adapters.hf.verify as whole

    monkeypatch.setattr(whole, "verify_stages", lambda *a, **k: pytest.fail("the second forward ran"))
    window = make_window()
    _choose(window, "attention")
    _finish(window, qtbot, llama)
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None, timeout=10000)
    verification = window.ctl.loader.verification
    assert verification.ok and verification.scope == "attention"
    assert {"dec.0.self_attn.probs", "dec.0.self_attn.context", "dec.1.self_attn.probs"} <= set(verification.checked)
    assert "logits" in verification.unchecked
    qtbot.waitUntil(lambda: " · verified (attention, in the pass)" in window.status_model.text(), timeout=10000)
    _choose(window, "auto")  # the next Run checks as the new choice says
    monkeypatch.undo()
    import tfdebug.adapters.hf.inpass as inpass

    # The window's check runs in the background while the user steps: the pass they wait for carries none, and
    # the second pass compares the probabilities itself.
    monkeypatch.setattr(inpass, "checking", lambda *a, **k: pytest.fail("attention was checked in the pass"))
    window.ctl.loader.forget_verdict()
    _finish(window, qtbot, llama)
    assert window.ctl.source.session.in_pass == "after"
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None, timeout=20000)
    verification = window.ctl.loader.verification
    assert verification.ok and verification.scope == ""
    assert {"dec.0.self_attn.probs", "dec.1.self_attn.probs", "logits"} <= set(verification.checked)
    window.ctl.close()
