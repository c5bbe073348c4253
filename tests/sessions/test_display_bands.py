"""The window's work on a recipe stage — the shown head's picture, every head's thumbnail, the stage's stats and its
checks, as the display worker prepares them (`display_cache.prepare`) — never computes more than a band of one head's
plane at once: at 32,768 tokens a head is 4.3 GB and a band 64 MB. Here a tiny model's ~40-token pass read in bands
of 16 rows shows and says what it shows read whole."""

from __future__ import annotations

import numpy as np

from tfdebug.core import bands, recipes
from tfdebug.core.stepper import Stepper
from tfdebug.core.view import ViewSelection
from tfdebug.sessions import display_cache
from tfdebug.sessions.display_cache import prepare
from tfdebug.sessions.session import DebugSession


def test_the_window_prepares_a_recipe_stage_a_band_of_rows_at_a_time(monkeypatch):
    from tests.adapters import hf_archs, hf_tiny
    from tests.adapters.test_recipes_exact import LONG
    from tfdebug.adapters.hf.adapter import wrap

    arch = next(a for a in hf_archs.ARCHITECTURES if a.model_type == "llama")
    session = DebugSession(wrap(hf_archs.build(arch), hf_tiny.word_tokenizer(False)), LONG[arch.kind])
    try:
        captures, _ = session.capture_all()
        stepper = Stepper.replay(captures)  # the pass as the window holds it once captured
        shown = stepper.captured([c.name for c in captures if c.name.endswith(".probs")][-1])
        assert shown is not None and shown.recipe
        heads, tokens = shown.shape[1], shown.shape[2]
        assert heads > 1 and tokens > 31
        # Thumbnails small enough that a head's rows are read on a strided grid, as a long prompt's are (48 pixels
        # from 32,768 rows: every 85th, those rows alone computed); a grid of every row, under 8 × 48 rows, reads
        # the head whole.
        monkeypatch.setattr(display_cache, "HEAD_THUMB", (2, 2))
        whole = prepare(stepper, shown, ViewSelection(), (1024, 1024), with_stats=True)

        computed: list[int] = []  # query rows × heads of every block of the chain's first step
        scores = type(shown.tensor.steps()[0])
        original = scores.block

        def counted(self, batch, heads, rows=recipes.ALL, keep=None):
            block = original(self, batch, heads, rows, keep)
            computed.append(block.shape[1] * block.shape[2])
            return block

        monkeypatch.setattr(scores, "block", counted)
        monkeypatch.setattr(bands, "BAND_CELLS", 16 * tokens)
        monkeypatch.setattr(recipes, "BLOCK_BYTES", 16 * tokens * 4)
        banded = prepare(stepper, shown, ViewSelection(), (1024, 1024), with_stats=True)
    finally:
        session.close()
    assert computed and max(computed) < 32 < tokens  # a band of 16 rows (its last takes the remainder), one head
    assert banded.slice is not None and whole.slice is not None
    assert np.allclose(banded.slice.values, whole.slice.values, rtol=1e-6, atol=1e-7)
    assert banded.heads is not None and whole.heads is not None
    assert np.array_equal(banded.heads[1].values, whole.heads[1].values)
    for part, one in ((banded.slice.stats, whole.slice.stats), (banded.stats, whole.stats)):
        assert part is not None and one is not None
        assert (part.min, part.max, part.count, part.neginf) == (one.min, one.max, one.count, one.neginf)
        assert abs(part.mean - one.mean) < 1e-9 and abs(part.std - one.std) < 1e-7
    assert banded.checks and [(c.ok, str(c.text)) for c in banded.checks] == \
        [(c.ok, str(c.text)) for c in whole.checks or []]
    assert all(c.ok for c in banded.checks)
