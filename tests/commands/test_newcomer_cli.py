"""The command line as a newcomer meets it (issue 52, item 5): --model's help names the bundled models, a bare
hf:NAME says what a hub id and a folder need, --input is checked before the model loads, and a target prefix
alone runs on the preset's source sentence, as the help says."""

from __future__ import annotations

import pytest

from tests.commands.test_arguments import one_sentence, run
from tfdebug.adapters.specs import ENTRIES
from tfdebug.io.snapshot import open_snapshot

BUNDLED = [e.spec for e in ENTRIES if e.listed]


@pytest.mark.parametrize("command", ["gui", "capture", "stages"])
def test_model_help_lists_the_bundled_models(command, capsys):
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0
    flat = " ".join(out.split())  # argparse wraps the help
    for name in ("demo", "random", "notes", "tiny-gpt2", "tiny-vit", "tiny-whisper"):
        assert name in BUNDLED and f"{name} (" in flat, name


def test_hf_name_without_org_says_what_a_hub_id_and_a_folder_need(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no folder called gpt2 here
    err = one_sentence(["stages", "--model", "hf:gpt2"], capsys)
    assert "hub id is ORG/NAME" in err and "hf:openai-community/gpt2" in err and "folder that exists" in err
    assert "No model folder at gpt2." not in err


def test_input_is_checked_before_the_model_loads(capsys, monkeypatch):
    from tfdebug.adapters import registry

    loads = []
    real = registry.load_adapter
    monkeypatch.setattr(registry, "load_adapter", lambda *a, **k: loads.append(a) or real(*a, **k))
    err = one_sentence(["stages", "--model", "random", "--input", "hello"], capsys)
    assert "--input takes KEY=TEXT" in err and loads == []  # refused before any model loaded


def test_a_target_without_a_source_takes_the_presets_source(capsys, tmp_path):
    from tfdebug.adapters.registry import load_adapter

    preset = load_adapter("random").default_texts()
    path = tmp_path / "tgt.safetensors"
    code, _, err = run(["capture", "--model", "random", "--input", "tgt=我", "--out", str(path), "--stages", "logits",
                        "--quiet"], capsys)
    assert code == 0, err
    with open_snapshot(path) as rec:
        assert rec.tokens["src"] == preset["src"].lower().split() and rec.tokens["tgt"] == ["<bos>", "我"]
    code, _, err = run(["capture", "--model", "random", "--src", "I love you", "--out", str(path), "--stages",
                        "logits", "--quiet"], capsys)
    assert code == 0, err
    with open_snapshot(path) as rec:  # a source alone does not inherit the preset's target prefix
        assert rec.tokens["tgt"] == ["<bos>"]
