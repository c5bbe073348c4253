"""`--chat` sends the text through the tokenizer's chat template; `tfdebug generate` prints the tokenizer's
decode of what it generated. Both checked against transformers itself (AutoTokenizer, model.generate)."""

from __future__ import annotations

import json

import pytest
import torch

from tests.adapters import hf_tokenizers
from tfdebug.cli import main

transformers = pytest.importorskip("transformers")

QUESTION = "what is the capital of france?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return hf_tokenizers.chat_llama_folder(tmp_path_factory.mktemp("chat"))


def test_chat_gives_the_templates_tokens_and_verifies_them(folder, capsys):
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    expected = tokenizer.apply_chat_template([{"role": "user", "content": QUESTION}], add_generation_prompt=True,
                                             tokenize=True, return_dict=True)["input_ids"]
    assert main(["stages", "--model", f"hf:{folder}", "--chat", "--input", f"prompt={QUESTION}", "--json",
                 "--stages", "tok.embed"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["shape"][1] == len(expected)  # <|user|> … <|assistant|>, not <s> + the words
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter(f"hf:{folder}")
    adapter.chat = True
    session = DebugSession(adapter, {"prompt": QUESTION})
    assert session.prepared.kwargs["input_ids"][0].tolist() == expected
    assert session.prepared.tokens["prompt"][-1] == "<|assistant|>"
    session.capture_all(verify="now")
    assert session.verification.ok and "input equal to AutoTokenizer's" in session.verification.describe()


def test_chat_without_a_template_is_one_sentence(capsys):
    assert main(["stages", "--model", "tiny-gpt2", "--chat"]) == 2
    assert "--chat needs a model whose tokenizer has a chat template" in capsys.readouterr().err


def test_generate_prints_the_tokenizers_decode(folder, capsys):
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True).eval()
    encoding = tokenizer("it is", return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**encoding, max_new_tokens=8, do_sample=False, eos_token_id=1, pad_token_id=1)
    expected = tokenizer.decode(out[0, encoding["input_ids"].shape[1]:], skip_special_tokens=True)
    assert main(["generate", "--model", f"hf:{folder}", "--input", "prompt=it is", "--max-new-tokens", "8",
                 "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert printed == expected + "\n"


def test_a_generation_reads_as_the_tokenizer_writes_it(folder):
    """Punctuation joins the word before it, as the tokenizer's decode writes it, not a space apart."""
    from tfdebug.adapters.registry import load_adapter

    adapter = load_adapter(f"hf:{folder}")
    ids = adapter.prepare({"prompt": "it is paris."}).kwargs["input_ids"][0].tolist()
    assert adapter.decode(ids) == "it is paris."
    assert " ".join(adapter._id_label(i) for i in ids[1:]) == "it is paris ."
