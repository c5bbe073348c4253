"""Grouped-query attention's repeated K and V as recipes (core.repeats): equal to `repeat_kv` bit for bit however
they are read, the products per K/V head equal the products with the repeat, and a snapshot stores a repeat as its
recipe (the K/V heads and the count), reopened equal; a damaged repeat recipe is one sentence."""

from __future__ import annotations

import pytest
import torch

from tests.adapters import hf_tiny
from tests.io.test_snapshot_validation import edit_manifest
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.adapters.hf.attention import repeat_kv
from tfdebug.core.errors import SnapshotError
from tfdebug.core.recipes import context_by_heads, is_plane, materialized
from tfdebug.core.repeats import Repeated, grouped_product
from tfdebug.io.exports import export_pass
from tfdebug.io.recording import Recording
from tfdebug.io.safetensors_file import read_header
from tfdebug.io.snapshot import open_snapshot, read_manifest
from tfdebug.models.sampling import DecodingSettings
from tfdebug.sessions.generation import GenerationSession


def test_a_repeat_read_any_way_equals_repeat_kv():
    kv = torch.randn(2, 3, 40, 8)
    lazy, whole = Repeated(kv, 4), repeat_kv(kv, 4)
    assert lazy.shape == whole.shape and lazy.dtype == whole.dtype
    assert torch.equal(lazy.materialize(), whole)
    for index in [(slice(None), slice(1, 7)), (1, 5), (0, slice(3, 4), slice(2, 37)), (1, 11, 39),
                  (slice(None), slice(2, 10), slice(0, 40, 7))]:
        assert torch.equal(lazy[index], whole[index]), index
    assert torch.equal(lazy + 1, whole + 1) and torch.equal(torch.sum(lazy, dim=1), whole.sum(dim=1))


@pytest.fixture(params=[1, 2], ids=["1-thread", "2-threads"])
def threads(request):
    before = torch.get_num_threads()
    torch.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before)


@pytest.mark.parametrize("rows", [1, 3, 40])
@pytest.mark.parametrize("dtype, keys", [(torch.float32, 290), (torch.bfloat16, 290), (torch.float16, 7)])
def test_products_per_kv_head_equal_the_products_with_the_repeat(rows, dtype, keys, threads):
    # float16 with 3 rows and 7 keys: the products per K/V head gave other bits than the one with the repeat.
    kv = torch.randn(1, 3, keys, 64).to(dtype)
    x = torch.randn(1, 9, rows, 64).to(dtype)
    probs = torch.softmax(torch.randn(1, 9, rows, keys), dim=-1).to(dtype)
    for start, stop in [(0, 9), (3, 6), (2, 7), (4, 5)]:  # blocks of whole groups, and blocks that cut them
        part = x[:, start:stop]
        assert torch.equal(grouped_product(part, kv, start, 3, transpose=True),
                           torch.matmul(part, repeat_kv(kv, 3)[:, start:stop].transpose(2, 3)))
        assert torch.equal(grouped_product(probs[:, start:stop], kv, start, 3),
                           torch.matmul(probs[:, start:stop], repeat_kv(kv, 3)[:, start:stop]))
    plane = torch.softmax(torch.randn(1, 9, rows, keys), dim=-1).to(dtype)

    class Whole:  # a plane of one block: context_by_heads with a repeated V
        shape, dtype, device = plane.shape, plane.dtype, plane.device

        @staticmethod
        def blocks(_block_bytes=None):
            yield slice(0, 9), slice(0, rows), plane
    assert torch.equal(context_by_heads(Whole(), Repeated(kv, 3)), torch.matmul(plane, repeat_kv(kv, 3)))


def _generation(steps: int = 3):
    adapter = wrap(hf_tiny.llama(), hf_tiny.word_tokenizer())
    session = GenerationSession(adapter, {"prompt": "I love you"}, DecodingSettings(max_new_tokens=steps,
                                                                                     stop_at_eos=False))
    captures, _ = session.capture_all()
    return session, captures


def test_a_generations_repeats_are_recipes_a_snapshot_stores_as_their_kv_heads(tmp_path):
    session, captures = _generation()
    by_name = {c.name: c for c in captures}
    repeats = [c for c in captures if c.info.kind == "kv_repeat"]
    assert repeats and all(c.recipe and c.held_nbytes == 0 and isinstance(c.tensor, Repeated) for c in repeats)
    for c in repeats:
        cache = by_name[c.name.rsplit(".", 1)[0] + (".cache_k" if c.name.endswith("k_repeat") else ".cache_v")]
        assert torch.equal(materialized(c.tensor), repeat_kv(cache.tensor, c.shape[1] // cache.shape[1])), c.name
    path = tmp_path / "generation.safetensors"
    export_pass(Recording.from_session(session, captures), path)
    session.close()
    assert not set(read_header(path).tensors) & {c.name for c in repeats}  # no repeat is in the file
    recipes = {s["name"]: s["recipe"] for s in read_manifest(path)["stages"] if "recipe" in s}
    assert {recipes[c.name]["steps"][0]["op"] for c in repeats} == {"repeat"}
    with open_snapshot(path) as back:
        for c in repeats:
            stored = back.tensor(back[c.name])
            assert is_plane(stored) and torch.equal(materialized(stored), materialized(c.tensor)), c.name


@pytest.mark.parametrize("change, words", [
    (lambda step: step.update(groups=0), "repeat count is not a whole number from 1 to"),
    (lambda step: step.update(groups=True), "repeat count is not a whole number from 1 to"),
    (lambda step: step.update(groups=3), "its inputs make a plane of shape"),
    (lambda step: step.update(op="scores", query=step["tensor"], key=step["tensor"]), "never that recipe"),
])
def test_a_damaged_repeat_recipe_is_one_sentence(change, words, tmp_path):
    session, captures = _generation(1)
    path = tmp_path / "pass.safetensors"
    export_pass(Recording.from_session(session, captures), path)
    session.close()
    name = next(c.name for c in captures if c.info.kind == "kv_repeat")

    def damage(manifest):
        change(next(s for s in manifest["stages"] if s["name"] == name)["recipe"]["steps"][0])

    path.write_bytes(edit_manifest(path.read_bytes(), damage))
    with pytest.raises(SnapshotError) as caught:
        with open_snapshot(path) as back:
            back.tensor(back[name])
    message = str(caught.value)
    assert name in message and words in message and "\n" not in message


def test_a_backward_counts_a_repeat_as_the_tensor_it_holds_there():
    """A backward computes its planes whole, and its repeats too: its stated peak counts a repeat recipe of the
    plan as a tensor it holds (a recipe plane as a plane)."""
    from dataclasses import replace

    from tfdebug.sessions.backward_peak import backward_peak
    from tfdebug.sessions.session import DebugSession

    session = DebugSession(wrap(hf_tiny.llama(), hf_tiny.word_tokenizer()), {"prompt": "I love you"})
    plan = list(session.plan)
    session.close()
    assert any(c.recipe and c.info.kind == "kv_repeat" for c in plan)
    as_tensors = [replace(c, recipe=False) if c.info.kind == "kv_repeat" else c for c in plan]
    assert backward_peak(plan) == backward_peak(as_tensors)
