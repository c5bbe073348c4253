"""What a capture budget keeps when not everything fits: the stages near the focus, pinned kinds first, and why."""

from __future__ import annotations

import torch

from tfdebug.core.budget import (EVICTED, FARTHER, FIRST_FIT, FULL, LATER_KIND, PASS_ANCHOR, PINNED_FULL, PINNED_SHARE,
                                 TOO_LARGE, USER_ANCHOR, CaptureBudget, KeepPolicy, drop_reason, estimate_capture)
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo

KINDS = ("q_proj", "scores", "softmax", "attn_v")


def _pass(layers: int = 4, cells: int = 25) -> list[Capture]:
    """A pass of `layers` layers, 4 stages each, every stage `cells` float32 cells (100 bytes), with tensors."""
    out = []
    for layer in range(layers):
        for kind in KINDS:
            info = StageInfo(f"dec.{layer}.self_attn.{kind}", kind, "dec.self_attn", layer, ("model",), "")
            out.append(Capture.of(info, torch.full((cells,), float(layer))))
    return out


def _run(captures, limit, policy, at=None):
    budget = CaptureBudget(limit, policy, order=[c.name for c in captures])
    for capture in captures:
        if not budget.admit(capture, at):
            capture.drop()
    return budget


def test_first_fit_keeps_the_start_and_drops_the_rest():
    captures = _pass()
    budget = _run(captures, 600, FIRST_FIT)
    assert budget.kept == [c.name for c in captures[:6]]
    assert set(budget.reasons.values()) == {FULL}


def test_near_without_focus_is_a_window_behind_the_live_stage():
    captures = _pass()
    budget = _run(captures, 600, KeepPolicy())
    assert budget.kept == [c.name for c in captures[-6:]]
    assert budget.held == 600 and all(c.tensor is None for c in captures[:-6])
    assert set(budget.reasons.values()) == {EVICTED}  # each was kept, then let go for a nearer one


def test_near_a_named_focus_keeps_the_stages_around_it():
    captures = _pass()
    focus = "dec.2.self_attn.scores"  # index 9
    budget = _run(captures, 500, KeepPolicy(focus=focus))
    assert budget.kept == [c.name for c in captures[7:12]]
    assert budget.reasons["dec.3.self_attn.attn_v"] == FARTHER
    assert budget.reasons["dec.0.self_attn.q_proj"] == EVICTED


def test_pinned_kinds_are_kept_in_every_layer():
    captures = _pass()
    budget = _run(captures, 600, KeepPolicy(pinned=("softmax",)))
    kept = budget.kept
    assert [n for n in kept if n.endswith("softmax")] == [f"dec.{i}.self_attn.softmax" for i in range(4)]
    assert kept[-2:] == ["dec.3.self_attn.softmax", "dec.3.self_attn.attn_v"]
    # Pinned stages that do not all fit compete by nearness like the others …
    tight = _run(_pass(), 250, KeepPolicy(pinned=("softmax",)))
    assert tight.kept == ["dec.2.self_attn.softmax", "dec.3.self_attn.softmax"]
    # … or, in forward order, the first ones stay.
    first = _run(_pass(), 250, KeepPolicy("first", pinned=("softmax",)))
    assert first.kept == ["dec.0.self_attn.softmax", "dec.1.self_attn.softmax"]
    assert first.reasons["dec.2.self_attn.softmax"] == PINNED_FULL


def test_a_stage_larger_than_the_budget_is_refused_as_too_large():
    captures = _pass()
    big = Capture.of(StageInfo("dec.4.self_attn.scores", "scores", "dec.self_attn", 4, ("model",), ""),
                     torch.zeros(1000))
    budget = _run(captures + [big], 600, KeepPolicy())
    assert budget.reasons[big.name] == TOO_LARGE and big.tensor is None
    assert "larger than the 600 B capture budget" in drop_reason(TOO_LARGE, 600)


def test_the_estimate_makes_the_same_choice_without_touching_the_plan():
    plan = [Capture(c.info, c.shape, c.dtype, c.device) for c in _pass()]
    policy = KeepPolicy(focus="dec.1.self_attn.softmax", pinned=("attn_v",))
    estimate = estimate_capture(plan, limit=700, policy=policy)
    budget = _run(_pass(), 700, policy)
    assert list(estimate.kept) == budget.kept and list(estimate.dropped) == budget.dropped
    assert estimate.reasons == budget.reasons and not any(c.dropped for c in plan)
    first = estimate.dropped[0]
    assert estimate.distances == budget.distances and estimate.distances[first] == (6, policy.focus, USER_ANCHOR)
    assert estimate.why(first) == drop_reason(budget.reasons[first], 700, budget.distances[first])
    assert str(estimate.why(first)) == ("Not kept: 6 stages from dec.1.self_attn.softmax, where you were looking, "
                                        "when the 700 B capture budget needed room for a nearer stage.")
    assert "keeping those nearest dec.1.self_attn.softmax, every attn_v kept" in estimate.describe()


def test_a_stage_that_runs_twice_is_counted_twice_and_let_go_once_each():
    captures = _pass(layers=1)
    again = [Capture.of(c.info, c.tensor.clone()) for c in captures]  # a module called a second time
    budget = _run(captures + again, 400, KeepPolicy())
    assert budget.held == sum(c.nbytes for c in captures + again if not c.dropped) == 400
    assert len(budget.kept) == 4 and sum(c.dropped for c in captures + again) == 4


def test_near_the_user_keeps_where_they_are_and_where_the_pass_is():
    captures = _pass()
    at = "dec.1.self_attn.softmax"  # index 6: the stage on screen while the pass runs on to the end
    budget = _run(captures, 600, KeepPolicy(), at=at)
    names = [c.name for c in captures]
    # The room is shared out by nearness to either: around the stage on screen, and behind the pass.
    assert budget.kept == names[5:8] + names[13:16]
    assert budget.reasons[names[0]] == EVICTED and budget.distances[names[0]] == (6, at, USER_ANCHOR)
    assert budget.distances[names[12]] == (3, names[15], PASS_ANCHOR)  # the last to go, when the pass was at the end
    assert str(drop_reason(EVICTED, 600, budget.distances[names[12]])) == (
        "Not kept: 3 stages behind dec.3.self_attn.attn_v, where the pass was, when the 600 B capture budget needed "
        "room for a nearer stage.")
    # A named focus (the CLI's --focus) wins over the stage on screen.
    focused = _run(_pass(), 500, KeepPolicy(focus="dec.2.self_attn.scores"), at=names[0])
    assert focused.kept == names[7:12]


def test_pinned_kinds_take_at_most_their_share_and_the_rest_stays_near():
    captures = _pass()  # every stage 100 B; softmax 4 × 100 B
    budget = _run(captures, 600, KeepPolicy(pinned=("softmax",), pin_share=0.5))
    names = [c.name for c in captures]
    pinned = [n for n in budget.kept if n.endswith("softmax")]
    assert pinned[:3] == [f"dec.{i}.self_attn.softmax" for i in range(3)]  # 300 B: half of the budget
    assert budget.reasons.get("dec.3.self_attn.softmax") != PINNED_SHARE  # kept as a near stage, the last ones
    assert budget.kept[-3:] == names[-3:]
    # Without the share, the pinned kind takes what it needs (4 × 100 B) and nearness the rest.
    whole = _run(_pass(), 600, KeepPolicy(pinned=("softmax",)))
    assert len([n for n in whole.kept if n.endswith("softmax")]) == 4
    # A pinned kind beyond its share competes by nearness and, let go, says why.
    tight = _run(_pass(), 300, KeepPolicy(pinned=("softmax",), pin_share=0.34))
    assert tight.kept[0] == "dec.0.self_attn.softmax" and tight.reasons["dec.1.self_attn.softmax"] == PINNED_SHARE
    assert "the kinds you keep may take only part of the 300 B" in str(drop_reason(PINNED_SHARE, 300))


def test_a_farther_stage_without_a_recorded_distance_says_nearer_stages_hold_the_room():
    from tfdebug.core.budget import FARTHER, drop_reason
    assert drop_reason(FARTHER, 10_000).id == "budget.why_farther"


def test_the_default_budget_counts_bytes_being_let_go_as_free_and_not_resident(monkeypatch):
    """A backward that replaces a pass lets go of the pass's captures first: the budget it is checked against counts
    them as free memory and, on the CPU, not as the process's resident memory."""
    import torch

    from tfdebug.core import budget

    gib = 2**30
    monkeypatch.setattr(budget, "free_memory", lambda device: 10 * gib)
    monkeypatch.setattr(budget, "total_memory", lambda: 20 * gib)
    monkeypatch.setattr(budget, "resident_memory", lambda: 5 * gib)
    cpu = torch.device("cpu")
    assert budget.default_capture_budget(cpu) == int(8 * gib) - 5 * gib  # 40% of RAM less what the process holds
    assert budget.default_capture_budget(cpu, releasing=4 * gib) == int(8 * gib) - 1 * gib
    monkeypatch.setattr(budget, "total_memory", lambda: 100 * gib)  # then half of what is free, those bytes included
    assert budget.default_capture_budget(cpu, releasing=4 * gib) == 7 * gib
    monkeypatch.setattr(budget, "free_memory", lambda device: None)
    assert budget.default_capture_budget(cpu, releasing=4 * gib) is None


def _rotary_pass(layers: int = 4) -> list[Capture]:
    """`layers` layers of a rotary attention: q's split and its rotation (100 B each), then the plane (nothing of its
    own to hold: a recipe) and the context (100 B)."""
    from tfdebug.core.recipes import Scores

    out = []
    for layer in range(layers):
        for kind in ("head_split", "rotary", "scores", "attn_v"):
            info = StageInfo(f"dec.{layer}.self_attn.{kind}", kind, "dec.self_attn", layer, ("model",), "")
            tensor = torch.full((1, 1, 5, 5), float(layer))
            out.append(Capture.of(info, Scores(tensor, tensor) if kind == "scores" else tensor))
    return out


def test_a_later_pinned_kind_holds_its_room_before_an_earlier_one():
    pinned = ("head_split", "rotary", "scores")
    names = [c.name for c in _rotary_pass()]
    # 500 B hold every layer's rotation (400 B) and one split: the planes are made from the rotations, so every
    # layer's attention stays; the splits go, the nearest to the pass's end kept.
    budget = _run(_rotary_pass(), 500, KeepPolicy(pinned=pinned))
    assert [n for n in budget.kept if "rotary" in n] == [n for n in names if "rotary" in n]
    assert [n for n in budget.kept if "scores" in n] == [n for n in names if "scores" in n]
    assert [n for n in budget.kept if "head_split" in n] == ["dec.3.self_attn.head_split"]
    assert budget.reasons["dec.0.self_attn.head_split"] == LATER_KIND
    assert "a later step of the kinds you keep" in str(drop_reason(LATER_KIND, 500))
    # Forward order would have kept the first layers whole and nothing of the last ones.
    assert budget.reasons.get("dec.3.self_attn.rotary") is None
    # Within a share of the budget the same precedence: the splits held there stop counting as pinned (kept as near
    # stages while there is room) so every rotation is pinned.
    shared = _run(_rotary_pass(), 800, KeepPolicy(pinned=pinned, pin_share=0.5))
    assert [n for n in shared.kept if "rotary" in n] == [n for n in names if "rotary" in n]
    assert shared.reasons.get("dec.3.self_attn.rotary") is None and shared.held <= 800
