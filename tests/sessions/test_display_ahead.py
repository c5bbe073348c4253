"""The stages the window prepared ahead (`display_cache.AheadCache`) hold no tensor the capture budget let go: the
four stages kept there would be memory no budget counts (a 32k-token pass's additive mask is 4.3 GB)."""

from __future__ import annotations

import gc
import weakref

from tfdebug.core.stepper import Stepper
from tfdebug.core.view import ViewSelection
from tfdebug.sessions.display_cache import AheadCache, prepare
from tfdebug.sessions.session import DebugSession


def test_a_stage_the_budget_lets_go_is_not_held_by_what_was_prepared_of_it():
    from tests.adapters import hf_archs, hf_tiny
    from tfdebug.adapters.hf.adapter import wrap

    arch = next(a for a in hf_archs.ARCHITECTURES if a.model_type == "llama")
    session = DebugSession(wrap(hf_archs.build(arch), hf_tiny.word_tokenizer(False)), {"prompt": "the cat sat on"})
    captures, _ = session.capture_all()
    stepper = Stepper.replay(captures)
    shown = stepper.captured(next(c.name for c in captures if c.name.endswith(".ffn.out")))
    assert shown is not None and shown.tensor is not None
    ahead = AheadCache()
    ahead.put(prepare(stepper, shown, ViewSelection(), (64, 64), with_stats=True))
    assert ahead.stats_for(shown) is not None and ahead.slice_for(shown, ahead._entries[0].key) is not None

    gone = weakref.ref(shown.tensor)
    shown.tensor, shown.dropped = None, True  # as the budget lets a stage go
    for capture in captures:
        if capture.name == shown.name:
            capture.tensor = None
    gc.collect()
    assert gone() is None  # nothing prepared of it keeps it alive
    assert ahead.stats_for(shown) is None and ahead.missing([shown], ()) == [shown]  # nor answers for it
