"""Limits bound damage, not work: a pass over a long text saves and reopens; only absurd sizes are refused."""

from __future__ import annotations

import pytest
import torch

from tfdebug import cli
from tfdebug.core.errors import SnapshotError
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.io import limits
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import open_snapshot, save_snapshot


def _pass(words: list[str], text: str) -> Recording:
    n = len(words)
    info = StageInfo(name="tok.embed", kind="embedding", site="tok", layer=None, axes=("batch", "token", "model"),
                     formula="E[x]", tokens={"token": "prompt"})
    tensor = torch.zeros(1, n, 2)
    capture = Capture(info=info, shape=tuple(tensor.shape), dtype=tensor.dtype, device=tensor.device, tensor=tensor)
    return Recording(captures=[capture], tokens={"prompt": words}, inputs={"prompt": text}, adapter="hf")


def test_a_1024_word_source_of_4351_characters_is_captured(tmp_path, capsys):
    words = ["abc"] * 768 + ["abcd"] * 256
    text = " ".join(words)
    assert len(text) == 4351  # the source the issue found refused
    path = tmp_path / "long.safetensors"
    save_snapshot(_pass(words, text), path)
    with open_snapshot(path) as back:
        assert back.inputs["prompt"] == text and back.tokens["prompt"] == words
    assert cli.main(["info", str(path)]) == 0


@pytest.mark.parametrize("tokens", [32_768, 131_072])
def test_a_pass_over_a_long_context_saves_and_reopens(tmp_path, tokens):
    words = ["▁tok"] * tokens
    text = "tok " * tokens  # ~4 characters a token, as text typically is
    path = tmp_path / "context.safetensors"
    save_snapshot(_pass(words, text), path)
    with open_snapshot(path) as back:
        assert len(back.tokens["prompt"]) == tokens and len(back.inputs["prompt"]) == len(text)


def test_hostile_sizes_stay_bounded():
    # The limits that protect against damaged files are still finite and far below memory sizes.
    assert limits.MAX_TEXT_CHARS <= 2**24 and limits.MAX_TOKENS_PER_STREAM <= 2**22
    with pytest.raises(SnapshotError, match="characters long"):
        save_snapshot(_pass(["a"], "a" * (limits.MAX_TEXT_CHARS + 1)), "/nonexistent/never-written.safetensors")
