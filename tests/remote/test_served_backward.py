"""The `backward` request against a server of the small random reference model (served by a thread here): refused in
one sentence while the pass runs, for an objective outside the pass, and over the gradients themselves; the
gradients it serves equal the backward of the same pass run in this process; a new pass of texts makes the served
pass live again."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("zmq")

from tests.remote.served import attached, served_here  # noqa: E402
from tfdebug.core.errors import InputError, StepperStateError, TfdebugError  # noqa: E402
from tfdebug.core.readout import ReadoutError  # noqa: E402
from tfdebug.remote.errors import FrameError  # noqa: E402
from tfdebug.sessions.backward import Objective, run_backward  # noqa: E402
from tfdebug.sessions.gradient_session import summary_of  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with served_here(client_timeout_s=30.0) as server:
        yield server


def _finished(session) -> None:
    session.stepper.continue_()
    assert session.stepper.wait() == "finished"


def test_backward_is_refused_in_one_sentence_until_the_pass_has_run_to_its_end(server):
    with attached(server) as session:
        assert not session.can_backward()
        with pytest.raises(StepperStateError, match="run it to the end first"):
            session.backward(Objective())
        assert session.stepper.state == "paused" and session.stepper.cursor == 0  # as it was


@pytest.mark.parametrize("objective, error, words", [
    (Objective("position", 10**6), InputError, "outside the pass's"),
    (Objective("logit_diff", 0, target=2**40), InputError, "outside the logits"),
    (Objective("logit_diff", 0), InputError, "needs a target token"),
    (Objective("gradient_of_everything"), FrameError, "gradient_of_everything"),
    (Objective("stage_sum", stage="dec.9.nothing"), InputError, "cannot be summed"),
])
def test_an_objective_outside_the_pass_is_refused_and_the_pass_stays(server, objective, error, words):
    with attached(server) as session:
        _finished(session)
        with pytest.raises(error, match=words) as refused:
            session.backward(objective)
        assert str(refused.value).count(". ") <= 1 and len(str(refused.value)) < 300
        assert session.lost is None and session.can_backward()  # still the finished pass of the model


def test_the_served_gradients_are_the_backward_of_the_same_pass_here(server):
    with attached(server) as session:
        _finished(session)
        live = server.served.session
        local = run_backward(live.adapter, live.prepared, Objective("position", 2))
        tokens = {k: list(v) for k, v in live.tokens.items()}
        result = session.backward(Objective("position", 2))
        gradients = result.source
        try:
            assert result.loss == local.loss and result.first_nonfinite is None
            # each token's saliency and the parameters' gradient norms, computed there, equal this process's
            assert result.summary == summary_of(local, tokens) and len(result.summary.saliency) > 1
            assert gradients.pass_info["gradients"] and not gradients.can_backward()
            assert [c.name for c in gradients.stepper.history] == [c.name for c in local.gradients]
            assert gradients.title.startswith("backward · ")
            served = server.served.session.stepper.history  # the server serves these: equal to the local ones
            for capture, want in zip(served, local.gradients):
                got, want = capture.tensor, want.tensor
                got = got.materialize() if hasattr(got, "materialize") else got
                want = want.materialize() if hasattr(want, "materialize") else want
                assert torch.equal(got, want), capture.name
            gradients.stepper.step()  # stepped on the server, logits first
            assert gradients.stepper.cursor == 1
            with pytest.raises(TfdebugError, match="cannot be backpropagated again"):
                gradients.backward(Objective())
            with pytest.raises(ReadoutError, match="no lens"):
                gradients.why()
            texts = dict(live.texts)
            again = gradients.reopen(texts)  # Run: a live pass of the model again
            assert not again.pass_info["gradients"] and again.stepper.state == "paused"
            _finished(again)
            assert again.can_backward()
        finally:
            gradients.close()


def test_a_served_stage_sum_is_the_same_sum_s_backward_here():
    """The request names the stage summed; the server's gradients are those of the same sum here."""
    with served_here(client_timeout_s=30.0) as server, attached(server) as session:
        _finished(session)
        live = server.served.session
        objective = Objective("stage_sum", stage="dec.0.ffn.resid")
        local = run_backward(live.adapter, live.prepared, objective)
        result = session.backward(objective)
        try:
            assert result.loss == local.loss
            names = [c.name for c in result.source.stepper.history]
            assert names == [c.name for c in local.gradients] and names[0] == "dec.0.ffn.resid"
        finally:
            result.source.close()


def _server_machine(monkeypatch, budget_without_captures: int, resident: int = 10**10) -> None:
    """The (in-process) server's machine as one whose default budget, the captures not counted, is the one given."""
    from tfdebug.core import budget

    total = int((budget_without_captures + resident) / budget.DEFAULT_RAM_SHARE) + 1
    monkeypatch.setattr(budget, "total_memory", lambda: total)
    monkeypatch.setattr(budget, "resident_memory", lambda: resident)
    monkeypatch.setattr(budget, "free_memory", lambda device: 10**15)


def _stated(live) -> tuple[int, int]:
    """What the server's finished pass `live` holds, and the backward's peak as stated from its plan."""
    from tfdebug.core.recorder import held_bytes
    from tfdebug.sessions.backward_peak import backward_peak, parameter_bytes

    return held_bytes(live.stepper.history), backward_peak(list(live.plan), parameter_bytes(live.adapter.module))


def test_a_served_backward_states_its_peak_and_lets_go_of_the_server_s_pass_first(monkeypatch):
    """`make_room_for_backward` over a served pass: the server checks the peak with its pass's captures counted as
    free (a budget they would not fit otherwise), lets them go, answers the stated peak; the backward then runs
    against that budget and its reply states the same peak."""
    import gc
    import weakref

    from tfdebug.sessions.backward_peak import check_backward_fits, parameter_bytes

    with served_here(client_timeout_s=30.0) as server, attached(server) as session:
        _finished(session)
        live = server.served.session
        held, stated = _stated(live)
        _server_machine(monkeypatch, stated - held // 2)  # over were the captures counted, within it when not
        alive = [weakref.ref(c.tensor) for c in live.stepper.history if c.tensor is not None and not c.recipe]
        plan, parameters = list(live.plan), parameter_bytes(live.adapter.module)
        peak = session.make_room_for_backward()
        pass_id, budget = server.served.backwards.room
        assert pass_id == server.served.pass_id and budget is not None and budget - held < stated <= peak <= budget
        assert peak == check_backward_fits(plan, budget, parameters)[0]
        gc.collect()
        assert live.stepper.history == [] and alive and not any(ref() is not None for ref in alive)
        result = session.backward(Objective())
        try:
            assert result.peak == peak and server.served.backwards.room is None
            assert [c.name for c in result.source.stepper.history][0] == "logits"
        finally:
            result.source.close()


def test_a_served_backward_that_cannot_fit_is_refused_and_the_server_keeps_its_pass(monkeypatch):
    with served_here(client_timeout_s=30.0) as server, attached(server) as session:
        _finished(session)
        live = server.served.session
        held, stated = _stated(live)
        _server_machine(monkeypatch, stated - 2 * held - 10**6)  # over even with the captures let go
        before = [c.name for c in live.stepper.history]
        with pytest.raises(InputError) as refused:
            session.make_room_for_backward()
        assert "\n" not in str(refused.value) and len(str(refused.value)) < 400
        assert [c.name for c in live.stepper.history] == before and all(
            c.tensor is not None for c in live.stepper.history)
        assert session.lost is None and session.can_backward()  # the pass can still be stepped there
