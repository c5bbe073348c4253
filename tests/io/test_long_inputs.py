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


def test_100001_tokens_and_a_config_of_a_million_values_are_work_not_damage(tmp_path):
    """Within the documented limits (docs/threat-model.md): a token stream up to 2,097,152 tokens (long-context
    models take 128k-2M), a model config up to 1,048,576 values (real ones hold at most tens of thousands)."""
    recording = _pass(["▁a"] * 100_001, "a " * 100_001)
    recording.model_config = {"id2label": list(range(limits.MAX_CONFIG_VALUES - 3))}  # the dict, its key and the list count too
    path = tmp_path / "big.safetensors"
    save_snapshot(recording, path)
    with open_snapshot(path) as back:
        assert len(back.tokens["prompt"]) == 100_001
        assert len(back.model_config["id2label"]) == limits.MAX_CONFIG_VALUES - 3


@pytest.mark.parametrize("past", ["config", "tokens"])
def test_past_the_manifest_limits_is_one_sentence(tmp_path, past):
    recording = _pass(["a"], "a")
    if past == "config":  # as the hostile set's 4M-value config is, one value past the limit already
        recording.model_config = {"id2label": [0] * (limits.MAX_CONFIG_VALUES - 2)}
    else:
        recording.tokens = {"prompt": ["a"] * (limits.MAX_TOKENS_PER_STREAM + 1)}
    words = {"config": "'model_config' holds more than 1,048,576 values", "tokens": "has 2,097,153 tokens"}[past]
    with pytest.raises(SnapshotError, match=words) as caught:
        save_snapshot(recording, tmp_path / "never.safetensors")
    assert "\n" not in caught.value.message
    assert not (tmp_path / "never.safetensors").exists()
