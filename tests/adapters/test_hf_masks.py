"""transformers' finfo.min masks count as masked wherever tfdebug shows or checks a mask stage."""

from __future__ import annotations

import hf_tiny
import torch

from tfdebug.adapters.hf.adapter import wrap
from tfdebug.sessions.session import DebugSession
from tfdebug.core.breakpoints import Breakpoint, condition_flags
from tfdebug.core.display import display_slice
from tfdebug.core.stats import tensor_stats


def _masked_stage():
    session = DebugSession(wrap(hf_tiny.gpt2(), hf_tiny.word_tokenizer()), {"prompt": "the cat sat on the mat"})
    captures, _ = session.capture_all()
    return {c.name: c for c in captures}["dec.0.self_attn.masked"]


def test_finfo_min_cells_are_masked_in_slices_and_stats():
    capture = _masked_stage()
    tensor, kind = capture.tensor, capture.info.kind
    assert torch.isfinite(tensor).all()  # transformers marks masked cells with a finite number
    above_diagonal = 6 * 5 // 2
    sl = display_slice(tensor, 2, 3, {0: 0, 1: 0}, kind=kind)
    assert sl.stats.neginf == above_diagonal
    assert (sl.values[torch.ones(6, 6).triu(1).bool().numpy()] == float("-inf")).all()
    assert sl.stats.min > -1e3  # the finite range is the scores', not finfo.min's
    stats = tensor_stats(tensor, kind=kind)
    assert stats.neginf == 4 * above_diagonal and stats.min > -1e3
    # Another kind keeps its values as they are.
    assert display_slice(tensor, 2, 3, {0: 0, 1: 0}).stats.neginf == 0


def test_conditions_do_not_fire_on_masked_cells():
    capture = _masked_stage()
    conditions = [Breakpoint.on_inf(), Breakpoint.on_abs_above(1e6)]
    assert condition_flags(capture.tensor, "mask", conditions).tolist() == [False, False]
    # Outside a mask stage the same numbers are huge values.
    assert condition_flags(capture.tensor, "scale", conditions).tolist() == [False, True]
