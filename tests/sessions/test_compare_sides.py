"""File ▸ Compare With…'s sides made by a pass here (`LocalSource.compare_with`, `compare_sides.compare_here`): each
kind of side made and compared in this process, what the window holds handed in as plain data (`Held`), and a
side that cannot be had refused with its sentence before anything runs. The served pass's are in
tests/remote/test_served_compare.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tfdebug.adapters.registry import load_adapter
from tfdebug.core.compare import SHAPE
from tfdebug.core.errors import CompareError
from tfdebug.core.reference import ReferencePass
from tfdebug.sessions.compare_sides import BEFORE_EDIT, FILE, INPUT, LIVE, PLACED, Held, Side, compare_here
from tfdebug.sessions.crosscheck import Placement
from tfdebug.sessions.local_source import LocalSource
from tfdebug.sessions.session import DebugSession

PROBS = "dec.0.self_attn.probs"
NOTHING = Held()


def made(work):
    """The comparison the work makes, never abandoned."""
    return work(lambda: None)


@pytest.fixture(scope="module")
def finished():
    session = DebugSession(load_adapter("random"))
    session.stepper.start()
    session.stepper.wait()
    session.stepper.continue_()
    session.stepper.wait()
    assert session.stepper.state == "finished"
    yield LocalSource.live(session)
    session.close()


def test_a_pass_here_makes_both_sides_here_and_gives_their_recordings(finished, tmp_path):
    path = tmp_path / "pass.safetensors"
    finished.export(path)
    recording, _ = finished.recording()
    compared = made(finished.compare_with(Side(LIVE), Side(FILE, str(path)), 1e-6, 1e-6, NOTHING))
    assert compared.comparison.first_divergent is None and compared.transplant is None
    assert compared.passes[0].names() == recording.names() and compared.opened == [compared.passes[1]]
    compared.passes[1].close()  # the window closes the files it opened
    unedited = Held(before_edit=(finished.session.adapter, dict(finished.texts)))
    again = made(finished.compare_with(Side(BEFORE_EDIT), Side(LIVE), 1e-6, 1e-6, unedited))
    assert again.comparison.first_divergent is None and again.opened == []  # run again here: the same numbers
    other = made(finished.compare_with(Side(LIVE), Side(INPUT, texts={k: "a b" for k in finished.texts}),
                                       1e-6, 1e-6, NOTHING))
    assert other.comparison.of_status(SHAPE)  # another input, of another length: its own pass, run here


def test_against_the_window_s_reference_pass_the_transplant_is_made_here(finished):
    """The reference pass the window holds (`Held.reference`, called at once) with one stage changed: the first
    divergent stage, and the reference's tensor put into this input's pass there (tfdebug.sessions.transplant)."""
    history = list(finished.stepper.history)
    changed = [replace(c, tensor=c.tensor + 1.0) if c.name == PROBS else c for c in history]
    reference = ReferencePass(("random", (), Placement("float32")), "float32 on cpu")
    reference.fill(changed)
    asked = []
    held = Held(reference=lambda placement: asked.append(placement) or reference)
    compared = made(finished.compare_with(Side(PLACED, placement=Placement("float32")), Side(LIVE), 1e-6, 1e-6,
                                          held))
    assert asked == [Placement("float32")] and compared.comparison.first_divergent.name == PROBS
    assert compared.transplant is not None and compared.transplant.stage == PROBS
    reference.fail("no such device")  # a reference that could not run says so, off the GUI thread
    with pytest.raises(CompareError, match="could not run: no such device") as caught:
        made(finished.compare_with(Side(LIVE), Side(PLACED, placement=Placement("float32")), 1e-6, 1e-6, held))
    assert caught.value.id == "compare.reference_failed"


def test_a_side_that_cannot_be_had_is_refused_before_anything_runs(finished, tmp_path):
    with pytest.raises(CompareError, match="No tensor has been edited yet") as caught:
        finished.compare_with(Side(LIVE), Side(BEFORE_EDIT), 1e-6, 1e-6, NOTHING)
    assert caught.value.id == "compare.no_edit"
    with pytest.raises(CompareError, match="Choose the snapshot"):
        finished.compare_with(Side(LIVE), Side(FILE), 1e-6, 1e-6, NOTHING)
    with pytest.raises(CompareError, match="Nothing is on screen"):  # with no pass on screen, made here too
        compare_here(None, Side(LIVE), Side(FILE, "x.safetensors"), 1e-6, 1e-6, NOTHING)
    with pytest.raises(CompareError, match="No model is loaded"):
        compare_here(None, Side(INPUT, texts={"src": "a"}), Side(FILE, "x.safetensors"), 1e-6, 1e-6, NOTHING)
    paused = DebugSession(load_adapter("random"))
    try:
        paused.stepper.start()
        paused.stepper.wait()
        paused.stepper.run_to(PROBS)
        paused.stepper.wait()
        with pytest.raises(CompareError, match="paused mid-forward") as caught:  # its taps hold the model
            LocalSource.live(paused).compare_with(Side(LIVE), Side(INPUT), 1e-6, 1e-6, NOTHING)
        assert caught.value.id == "compare.paused"
    finally:
        paused.close()
