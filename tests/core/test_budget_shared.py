"""A capture budget counts a generation's K/V cache stages by the storage under them, once while any holds it: every
step's cache is a view of one buffer (adapters.hf.kv_rows), not a copy."""

from __future__ import annotations

import random

import pytest
import torch

from tfdebug.core.budget import FIRST_FIT, NEAR, CaptureBudget, KeepPolicy
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo


def _held(captures) -> int:
    """What the kept captures really hold: each storage under a cache stage once, any other stage its own size."""
    storages, own = {}, 0
    for c in captures:
        if c.tensor is None:
            continue
        if c.info.kind == "kv_cache":
            storages[c.tensor.untyped_storage().data_ptr()] = c.tensor.untyped_storage().nbytes()
        else:
            own += c.nbytes
    return own + sum(storages.values())


def _generation(steps: int, layers: int = 2, rows: int = 8, room: int = 8):
    """Per step and layer a cache stage (a view of the first rows of its layer's buffer of `rows + room` rows) and
    an attention output of its own."""
    buffers = [torch.zeros(1, 2, rows + room, 4) for _ in range(layers)]
    out = []
    for t in range(steps):
        for layer in range(layers):
            cache = StageInfo(f"gen.{t}.dec.{layer}.self_attn.cache_k", "kv_cache", "dec.self_attn", layer, ("model",), "")
            out.append(Capture.of(cache, buffers[layer][:, :, : rows + t]))
            context = StageInfo(f"gen.{t}.dec.{layer}.self_attn.context", "attn_v", "dec.self_attn", layer,
                                ("model",), "")
            out.append(Capture.of(context, torch.zeros(1, 2, 1, 4)))
    return out, buffers


def test_every_step_s_cache_is_kept_where_its_buffer_fits_once():
    captures, buffers = _generation(steps=8)
    sizes = sum(c.nbytes for c in captures)
    limit = _held(captures) + 64  # room for what is held, far less than the steps' sizes summed
    assert sizes > 3 * limit
    budget = CaptureBudget(limit, FIRST_FIT)
    assert all(budget.admit(c) for c in captures)
    assert budget.held == _held(captures) == sum(b.nbytes for b in buffers) + 8 * 2 * 32


def test_a_pinned_cache_kind_is_counted_by_its_own_size():
    captures, _ = _generation(steps=4)
    budget = CaptureBudget(None, KeepPolicy(NEAR, None, ("kv_cache",)))
    for c in captures:
        budget.admit(c)
    assert budget.held == sum(c.nbytes for c in captures)


@pytest.mark.parametrize("seed", range(6))
def test_what_the_budget_counts_is_what_its_kept_stages_hold_while_nearer_ones_push_others_out(seed):
    rng = random.Random(seed)
    captures, _ = _generation(steps=10, layers=3)
    limit = rng.randint(400, 1600)
    budget = CaptureBudget(limit, KeepPolicy(NEAR))
    at = None
    for i, capture in enumerate(captures):
        if rng.random() < 0.2:  # the user looks back at an earlier stage now and then
            at = captures[rng.randrange(i + 1)].name
        if not budget.admit(capture, at):
            capture.drop()
        kept = [c for c in captures[: i + 1] if c.tensor is not None]
        assert [c.name for c in kept] == sorted(budget.kept, key=[c.name for c in captures].index)
        assert budget.held == _held(kept) <= limit
    budget.let_go()
    assert budget.held == 0 and not budget._shared
