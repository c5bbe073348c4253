"""The bundled tiny GPT-2-style language model: listed, loads, verified, and it learned the demo corpus."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")

from tfdebug.adapters.hf.load import bundled_folder  # noqa: E402
from tfdebug.adapters.registry import available_models, load_adapter  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402

FOLDER = bundled_folder("tiny-gpt2")


def test_bundled_files_are_small_and_listed():
    names = {p.name for p in FOLDER.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "metrics.json"} <= names
    assert sum(p.stat().st_size for p in FOLDER.iterdir()) < 2 * 1024 * 1024
    assert "tiny-gpt2" in available_models()


def test_it_translates_after_the_equals_sign_and_is_verified():
    adapter = load_adapter("tiny-gpt2", "cpu", "float32")
    assert adapter.default_texts() == {"prompt": "I love you = 我 爱 你"}
    session = DebugSession(adapter)
    captures, logits = session.capture_all()
    assert session.verification.ok
    tokens = session.tokens["prompt"]
    assert tokens == ["<|endoftext|>", "i", "love", "you", "=", "我", "爱", "你"]
    vocabulary = adapter.vocabulary()
    predicted = [vocabulary[i] for i in logits[0].argmax(-1).tolist()]
    assert predicted[4:] == ["我", "爱", "你", "<|endoftext|>"]  # after '=', each next Chinese word, then the end
    probs = {c.name: c for c in captures}["dec.1.self_attn.probs"]
    assert probs.shape == (1, 4, 8, 8)
    metrics = json.loads((FOLDER / "metrics.json").read_text())
    assert metrics["held_out"]["exact_match"] >= 0.95  # what training measured on held-out pairs


def test_a_special_token_typed_in_the_prompt_is_named(capsys, monkeypatch):
    """Typed as text, <|endoftext|> becomes that one special token: tfdebug says so instead of staying silent."""
    from tfdebug.cli import main

    monkeypatch.setattr("tfdebug.core.memory.keep_freed_memory", lambda: None)  # in-process: no process-wide tuning

    adapter = load_adapter("tiny-gpt2", "cpu", "float32")
    session = DebugSession(adapter, {"prompt": "i love you <|endoftext|>"})
    assert session.tokens["prompt"][-1] == "<|endoftext|>"
    assert session.notes == ["<|endoftext|> is a special token, not text: the model reads it as that one token."]
    assert DebugSession(adapter, {"prompt": "i love you"}).notes == []
    assert main(["stages", "--model", "tiny-gpt2", "--input", "prompt=i love <|endoftext|>"]) == 0
    assert "note: <|endoftext|> is a special token" in capsys.readouterr().err
