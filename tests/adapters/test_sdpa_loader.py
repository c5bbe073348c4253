"""`--model torch:package.module:factory`: the example opens from a checkout, bad specs are one sentence."""

from pathlib import Path

import pytest

from tfdebug.adapters.registry import load_adapter
from tfdebug.cli import main
from tfdebug.core.errors import ModelLoadError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def leave_the_allocator_alone(monkeypatch):
    """cli.main opts the process into allocator tuning; in-process here it would leak into later tests."""
    monkeypatch.setattr("tfdebug.core.memory.keep_freed_memory", lambda: None)


def test_example_gpt_block_opens_from_the_repository_root(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["stages", "--model", "torch:examples.gpt_block:factory", "--input", "text=a b c d"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("verified: max |Δ|")
    assert any(line.startswith("blocks.1.attn.probs") and "(1, 4, 4, 4)" in line for line in lines)


def test_a_file_path_works_from_anywhere(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    adapter = load_adapter(f"torch:{ROOT / 'examples' / 'gpt_block.py'}:factory")
    assert adapter.default_texts() == {"text": "the cat sat on the mat because it was warm"}


@pytest.mark.parametrize("spec,words", [
    ("torch:examples.gpt_block", "is not torch:package.module:factory"),
    ("torch:no_such_package.mod:factory", "Cannot import no_such_package.mod"),
    ("torch:examples.gpt_block:nothing", "has no function called nothing"),
    ("torch:json:dumps", "json.dumps() failed"),
])
def test_bad_specs_are_one_sentence(monkeypatch, capsys, spec, words):
    monkeypatch.chdir(ROOT)
    with pytest.raises(ModelLoadError, match=words.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        load_adapter(spec)
    assert main(["stages", "--model", spec]) == 2
    assert words in capsys.readouterr().err
