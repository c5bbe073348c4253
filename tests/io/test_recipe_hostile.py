"""Recipes that contradict themselves (issue 53, item 3): a recipe is data, checked against the stored inputs
it names before anything computes it — numbers finite and in range, a plane exactly as large as its inputs make,
recipes only on stage kinds that have them, every step's dtype the one it computes. `info --verify`, `diff`,
`open` and exports each give one sentence."""

from __future__ import annotations

import json

import pytest
import torch

from tests.io.test_recipe_snapshots import _pass
from tests.io.test_snapshot_validation import edit_manifest
from tfdebug import cli
from tfdebug.core.errors import SnapshotError
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.recipe_store import check_recipe
from tfdebug.io.snapshot import open_snapshot

PROBS = "dec.0.self_attn.probs"


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> bytes:
    recording, _ = _pass("llama", torch.float32)
    path = tmp_path_factory.mktemp("recipes") / "pass.safetensors"
    export_pass(recording, path)
    return path.read_bytes()


def _stage(manifest, name=PROBS):
    return next(s for s in manifest["stages"] if s["name"] == name)


def huge_scale(m):
    step = next(s for s in _stage(m, "dec.0.self_attn.scaled")["recipe"]["steps"] if s["op"] == "scale")
    step["value"] = 10 ** 400  # JSON `1000…0`: an integer no float holds


def inf_scale(m):
    step = next(s for s in _stage(m, "dec.0.self_attn.scaled")["recipe"]["steps"] if s["op"] == "scale")
    step["value"] = 1e300


def recipe_on_embedding(m):
    """The embedding stage made a recipe that reads its own tensor, stored as a recipe input."""
    embed = _stage(m, "tok.embed")
    embed["recipe"] = {"steps": [{"op": "tensor", "tensor": "[recipe]99"}]}
    m.setdefault("recipe_inputs", []).append({"name": "[recipe]99", "shape": embed["shape"], "dtype": embed["dtype"]})


def trillion_cells(m):
    stage = _stage(m)
    stage["shape"] = [stage["shape"][0], 30_000_000_000] + stage["shape"][2:]  # 10^12 cells over 6 × 6 tokens


def bool_step(m):
    _stage(m)["recipe"]["steps"][-1]["dtype"] = "bool"


def float64_step(m):
    _stage(m)["recipe"]["steps"][1]["dtype"] = "float64"


CASES = {
    "a scale of 10^400": (huge_scale, "has no finite constant"),
    "a scale of 1e300": (inf_scale, "has no finite constant"),
    "a recipe on the embedding stage": (recipe_on_embedding, "kind embedding is never a recipe"),
    "a plane claiming 10^12 cells": (trillion_cells, "not the stage's (1, 30000000000, 6, 6)"),
    "a bool step": (bool_step, "gives bool where its inputs make"),
    "a float64 step": (float64_step, "gives float64 where its inputs make float32"),
}


def _damaged(good: bytes, tmp_path, case: str):
    change, words = CASES[case]
    path = tmp_path / "bad.safetensors"
    path.write_bytes(edit_manifest(good, change) if case != "a recipe on the embedding stage"
                     else _embedding_as_recipe(good))
    return path, words


def _embedding_as_recipe(good: bytes) -> bytes:
    """`recipe_on_embedding`, with the file's tensor of the embedding renamed to the recipe input it reads (a
    recipe stage holds no tensor of its own): only the manifest's claim is wrong."""
    from tests.io.test_snapshot_validation import MANIFEST_KEY, join, split

    header, data = split(good)
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    recipe_on_embedding(manifest)
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest)
    header["[recipe]99"] = header.pop("tok.embed")
    return join(header, data)


def _one_sentence(text: str, words: str) -> None:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("tfdebug: ") and words in lines[0], text
    assert "Traceback" not in text


@pytest.mark.parametrize("case", list(CASES))
def test_open_refuses_each_case_in_one_sentence(good, tmp_path, case):
    path, words = _damaged(good, tmp_path, case)
    with pytest.raises(SnapshotError) as caught:
        with open_snapshot(path) as back:
            for capture in back.captures:
                back.tensor(capture)
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("case", list(CASES))
def test_info_verify_and_diff_refuse_each_case_with_exit_2(good, tmp_path, capsys, case):
    path, words = _damaged(good, tmp_path, case)
    other = tmp_path / "good.safetensors"
    other.write_bytes(good)
    for argv in (["info", "--verify", str(path)], ["diff", str(other), str(path)]):
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert code == 2, (argv, out, err)
        _one_sentence(err, words)


@pytest.mark.parametrize("suffix", [".npz", ".pt"])
def test_every_export_of_a_checked_pass_reopens_with_the_stages_dtypes(good, tmp_path, suffix):
    path = tmp_path / "pass.safetensors"
    path.write_bytes(good)
    with open_snapshot(path) as back:
        out = tmp_path / f"again{suffix}"
        export_pass(back, out)
        declared = {c.name: c.dtype for c in back.captures}
    with load_export(out) as again:
        for capture in again.captures:
            assert again.tensor(capture).dtype == declared[capture.name]


def _tensors(shapes):
    return {k: ("float32", v) for k, v in shapes.items()}


def test_the_plane_is_exactly_what_the_inputs_make():
    tensors = _tensors({"q": (1, 4, 6, 8), "k": (1, 2, 9, 8)})
    stage = {"name": "s", "kind": "scores", "shape": [1, 4, 6, 9], "dtype": "float32",
             "recipe": {"steps": [{"op": "scores", "query": "q", "key": "k"}]}}
    check_recipe(stage, tensors)
    for shape in ([1, 4, 6, 10], [1, 4, 10 ** 6, 10 ** 6], [4, 6, 9]):
        with pytest.raises(SnapshotError, match="inputs make a plane of shape"):
            check_recipe({**stage, "shape": shape}, tensors)
    with pytest.raises(SnapshotError, match="its steps make float32, not the stage's bfloat16"):
        check_recipe({**stage, "dtype": "bfloat16"}, tensors)


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

NUMBERS = st.one_of(st.integers(-10 ** 500, 10 ** 500), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                    st.none(), st.text(max_size=3))
STEP = st.fixed_dictionaries({"op": st.sampled_from(["scores", "tensor", "scale", "softcap", "bias", "mask", "softmax",
                                                     "exec"])},
                             optional={"query": st.sampled_from(["q", "k", "m", "x", "nope"]),
                                       "key": st.sampled_from(["q", "k", "m", "x", "nope"]),
                                       "tensor": st.sampled_from(["q", "k", "m", "x", "nope"]),
                                       "dtype": st.sampled_from(["float32", "bfloat16", "float64", "bool", "int8", 3]),
                                       "value": NUMBERS})


@settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(STEP, min_size=0, max_size=6), kind=st.sampled_from(["scores", "softmax", "embedding", None]),
       shape=st.lists(st.integers(0, 10 ** 7), min_size=3, max_size=5),
       dtype=st.sampled_from(["float32", "bfloat16", "bool"]))
def test_any_recipe_is_accepted_only_when_its_plane_can_be_built(steps, kind, shape, dtype):
    tensors = {"q": ("float32", (1, 4, 6, 8)), "k": ("float32", (1, 2, 9, 8)), "m": ("bfloat16", (1, 1, 6, 12)),
               "x": ("bool", (1, 4, 6, 9))}
    stage = {"name": "s", "kind": kind, "shape": shape, "dtype": dtype, "recipe": {"steps": steps}}
    try:
        check_recipe(stage, tensors)
    except SnapshotError as exc:
        assert "\n" not in str(exc)
        return
    from tfdebug.io.recipe_store import rebuild

    stored = {"q": torch.randn(1, 4, 6, 8), "k": torch.randn(1, 2, 9, 8),
              "m": torch.zeros(1, 1, 6, 12, dtype=torch.bfloat16)}
    plane = rebuild("s", stage["recipe"], tuple(shape), stored.__getitem__)
    whole = plane.materialize()
    assert tuple(whole.shape) == tuple(shape) and str(whole.dtype) == f"torch.{dtype}"
    assert whole.dtype == plane.block(slice(None), slice(None)).dtype
