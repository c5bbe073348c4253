"""An 8,192-token prompt (~40,000 characters): captured with a stage filter, saved, reopened and shown."""

from __future__ import annotations

import json

import pytest
import torch

transformers = pytest.importorskip("transformers")

from tests.adapters.hf_tiny import VOCAB, save_folder  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402
from tfdebug.core.display import display_slice  # noqa: E402
from tfdebug.io.limits import MAX_TEXT_CHARS  # noqa: E402
from tfdebug.io.manifest import check_manifest  # noqa: E402
from tfdebug.io.recording import Recording  # noqa: E402
from tfdebug.io.snapshot import open_snapshot, save_snapshot  # noqa: E402
from tfdebug.core.errors import SnapshotError  # noqa: E402

TOKENS = 8192
WORDS = "apple is delicious love you".split()  # words the test tokenizer knows, ~5.6 characters a word


@pytest.mark.slow
def test_an_8k_token_pass_is_captured_saved_reopened_and_shown(tmp_path):
    config = transformers.GPT2Config(vocab_size=VOCAB, n_embd=16, n_layer=1, n_head=1, n_positions=TOKENS,
                                     bos_token_id=0, eos_token_id=0)
    torch.manual_seed(0)
    folder = save_folder(transformers.GPT2LMHeadModel(config).eval(), tmp_path / "long")
    prompt = " ".join(WORDS[i % len(WORDS)] for i in range(TOKENS))
    adapter = load_adapter(f"hf:{folder}")
    session = DebugSession(adapter, {"prompt": prompt}, stages=["dec.0.self_attn.probs"])
    assert len(session.tokens["prompt"]) == TOKENS and len(prompt) > 40_000
    captures, _ = session.capture_all()
    assert session.verification.ok
    assert [(c.name, c.shape) for c in captures] == [("dec.0.self_attn.probs", (1, 1, TOKENS, TOKENS))]
    path = tmp_path / "long.safetensors"
    save_snapshot(Recording.from_session(session, captures), path)
    with open_snapshot(path) as reopened:
        assert reopened.inputs == {"prompt": prompt} and len(reopened.tokens["prompt"]) == TOKENS
        capture = reopened.captures[0]
        probs = reopened.tensor(capture)
        assert torch.equal(probs, captures[0].tensor)
        shown = display_slice(probs, 2, 3, {0: 0, 1: 0}, max_size=(1024, 1024), kind=capture.info.kind)
        assert shown.values.shape == (1024, 1024) and shown.source_shape == (TOKENS, TOKENS)
        assert shown.downsampled and shown.values[0, -1] == 0  # the causal mask: the first query sees no later key
        # Zooming in reads the detail at full resolution: the last 256 queries × 256 keys.
        detail = display_slice(probs[..., -256:, -256:], 2, 3, {0: 0, 1: 0}, kind=capture.info.kind)
        assert not detail.downsampled and detail.values[-1].sum() == pytest.approx(
            float(probs[0, 0, -1, -256:].sum()), rel=1e-5)


def test_input_texts_stay_bounded():
    doc = {"format_version": 2, "tfdebug_version": "0", "device": "cpu", "dtype": "float32", "model_config": {},
           "tokens": {"prompt": ["a"]}, "inputs": {"prompt": "a" * (MAX_TEXT_CHARS + 1)},
           "stages": [{"name": "logits", "kind": "logits", "site": "head", "layer": None, "shape": [1, 1, 2],
                       "dtype": "float32", "axes": ["batch", "token", "vocab"], "formula": "",
                       "tokens": {"token": "prompt"}}]}
    with pytest.raises(SnapshotError, match="8,000,001 characters long"):
        check_manifest(json.loads(json.dumps(doc)), "x")
    doc["inputs"] = {"prompt": "b" * 40_000}
    check_manifest(doc, "x")  # a long prompt is no damage
    doc["model_config"] = {"note": "c" * (MAX_TEXT_CHARS + 1)}
    with pytest.raises(SnapshotError, match="8,000,001 characters long"):
        check_manifest(doc, "x")  # any other string is bounded by the same limit
