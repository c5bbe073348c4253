"""Inputs as transformers prepares them, checked against transformers' own AutoTokenizer and the unmodified
model: a BERT-style encoder whose tokenizer.json fixes padding and truncation at 128, sentence pairs,
a padded input's mask, and verification that fails on an input AutoTokenizer would not make."""

from __future__ import annotations

import pytest
import torch

from tests.adapters import hf_tokenizers
from tfdebug.adapters.base import Prepared
from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession

transformers = pytest.importorskip("transformers")

SENTENCE = "The quick brown fox jumps over the lazy dog in Paris."


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return hf_tokenizers.wordpiece_bert_folder(tmp_path_factory.mktemp("encoder"))


@pytest.fixture(scope="module")
def reference(folder):
    """transformers' own tokenizer and model of the folder (eager attention, so it returns probabilities)."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = transformers.AutoModel.from_pretrained(str(folder), local_files_only=True, attn_implementation="eager")
    return tokenizer, model.eval()


def _pass(folder, texts):
    session = DebugSession(load_adapter(f"hf:{folder}"), texts)
    captures, _ = session.capture_all(verify="now")
    return session, {c.name: c for c in captures}


def _probs_match(by_name, model, encoding):
    with torch.no_grad():
        expected = model(**encoding, output_attentions=True).attentions
    probs = [by_name[f"enc.{i}.attn.probs"].tensor for i in range(len(expected))]
    return max(float((p - e).abs().max()) for p, e in zip(probs, expected))


def test_ids_mask_and_probabilities_equal_autotokenizer_and_the_model(folder, reference):
    tokenizer, model = reference
    session, by_name = _pass(folder, {"text": SENTENCE})
    encoding = tokenizer(SENTENCE, return_tensors="pt")
    given = session.prepared.kwargs
    assert given["input_ids"].shape == (1, 14)  # not tokenizer.json's 128: transformers pads only when asked
    for name in ("input_ids", "token_type_ids"):
        assert torch.equal(given[name], encoding[name]), name
    # Nothing padded: a mask of ones masks nothing, and transformers skips it as the model is given none.
    assert bool(encoding["attention_mask"].all()) and "attention_mask" not in given
    assert session.prepared.tokens["text"][0] == "[CLS]" and "[PAD]" not in session.prepared.tokens["text"]
    assert _probs_match(by_name, model, encoding) <= 1e-5
    verification = session.verification
    assert verification.ok and "input equal to AutoTokenizer's" in verification.describe()
    assert len(verification.checked) + len(verification.unchecked) == len(by_name)


def test_a_sentence_pair_has_its_token_types(folder, reference):
    tokenizer, model = reference
    session, by_name = _pass(folder, {"text": "the cat sat", "text_pair": "on the mat"})
    encoding = tokenizer("the cat sat", "on the mat", return_tensors="pt")
    assert torch.equal(session.prepared.kwargs["token_type_ids"], encoding["token_type_ids"])
    assert session.prepared.kwargs["token_type_ids"].sum() == 4  # "on the mat [SEP]"
    assert _probs_match(by_name, model, encoding) <= 1e-5
    assert session.verification.ok


def test_a_long_text_is_cut_at_the_tokenizers_length_and_says_so(folder, reference):
    tokenizer, _ = reference
    text = " ".join(["the cat sat on the mat"] * 50)  # 300 words
    session, _ = _pass(folder, {"text": text})
    assert session.prepared.kwargs["input_ids"].shape == (1, 128)
    assert any("302 tokens long" in note and "first 128" in note for note in session.notes)
    expected = tokenizer(text, truncation=True, max_length=128, return_tensors="pt")
    assert torch.equal(session.prepared.kwargs["input_ids"], expected["input_ids"])
    assert session.verification.ok


def test_padded_ids_without_their_mask_fail_verification(folder):
    adapter = load_adapter(f"hf:{folder}")
    right = adapter.prepare({"text": SENTENCE})
    padded = torch.tensor([hf_tokenizers.wordpiece_tokenizer().encode(SENTENCE).ids])  # tokenizer.json's 128
    wrong = Prepared(texts=right.texts, kwargs={"input_ids": padded}, tokens=right.tokens, options=right.options)
    session = DebugSession(adapter, prepared=wrong)
    session.capture_all(verify="now")
    verification = session.verification
    assert not verification.ok
    assert "the first position that differs is position 14" in verification.describe()
    assert "AutoTokenizer" in verification.describe()


def test_a_padded_input_masks_its_padding(folder, reference):
    """A padded input with its mask: a mask stage, and no attention at [PAD] keys."""
    tokenizer, model = reference
    encoding = tokenizer(SENTENCE, padding="max_length", max_length=32, return_tensors="pt")
    adapter = load_adapter(f"hf:{folder}")
    prepared = Prepared(texts={"text": SENTENCE, "text_pair": ""}, kwargs=dict(encoding),
                        tokens={"text": [adapter._id_label(i) for i in encoding["input_ids"][0].tolist()]})
    session = DebugSession(adapter, prepared=prepared)
    captures, _ = session.capture_all(verify="now")
    by_name = {c.name: c for c in captures}
    assert "enc.0.attn.masked" in by_name
    probs = by_name["enc.0.attn.probs"].tensor
    assert float(probs[..., 14:].abs().max()) == 0.0
    assert _probs_match(by_name, model, encoding) <= 1e-5
    assert session.verification.ok


def test_a_batch_from_the_command_line_is_padded_by_the_tokenizer(folder, reference, capsys):
    """Repeated --input: one batch, padded on the tokenizer's side; the mask stage shows the padding and the
    probabilities at [PAD] keys are 0, as the model's own."""
    import json

    from tfdebug.cli import main

    tokenizer, model = reference
    short, long = "the cat sat", "the quick brown fox jumps over the lazy dog"
    assert main(["stages", "--model", f"hf:{folder}", "--input", f"text={short}", "--input", f"text={long}",
                 "--json", "--stages", "enc.0.attn.*"]) == 0
    out = capsys.readouterr()
    rows = {row["name"]: row for row in json.loads(out.out)}
    encoding = tokenizer([short, long], padding=True, return_tensors="pt")
    assert rows["enc.0.attn.masked"]["shape"] == [2, 4, 11, 11]
    assert "verified:" in out.err and "input equal to AutoTokenizer's" in out.err

    adapter = load_adapter(f"hf:{folder}")
    prepared = adapter.prepare_batch([{"text": short}, {"text": long}])
    assert torch.equal(prepared.kwargs["attention_mask"], encoding["attention_mask"])
    session = DebugSession(adapter, prepared=prepared)
    captures, _ = session.capture_all(verify="now")
    by_name = {c.name: c for c in captures}
    assert float(by_name["enc.1.attn.probs"].tensor[0, ..., 5:].abs().max()) == 0.0  # row 0's padding
    assert _probs_match(by_name, model, encoding) <= 1e-5
    assert session.verification.ok


def test_a_batch_needs_a_padding_token_and_equal_rows(capsys):
    from tfdebug.cli import main

    assert main(["stages", "--model", "tiny-gpt2", "--input", "prompt=I love you", "--input", "prompt=I"]) == 2
    assert "has no padding token, so several texts cannot be padded" in capsys.readouterr().err
    assert main(["generate", "--model", "tiny-gpt2", "--input", "prompt=I", "--input", "prompt=you"]) == 2
    assert "make a batch, which tfdebug stages and tfdebug capture take" in capsys.readouterr().err


def test_a_batch_from_a_text_file_is_the_same_batch(folder, reference, capsys, tmp_path):
    """--input-file text=FILE: one row per line, the same padded batch as --input repeated."""
    import json

    from tfdebug.cli import main

    tokenizer, _ = reference
    rows = ["the cat sat", "the quick brown fox jumps over the lazy dog"]
    listed = tmp_path / "texts.txt"
    listed.write_text(f"{rows[0]}\n\n{rows[1]}\n", encoding="utf-8")
    assert main(["stages", "--model", f"hf:{folder}", "--input-file", f"text={listed}", "--json",
                 "--stages", "enc.0.attn.masked"]) == 0
    out = capsys.readouterr()
    length = tokenizer(rows, padding=True, return_tensors="pt")["input_ids"].shape[1]
    assert json.loads(out.out)[0]["shape"] == [2, 4, length, length]
    assert "input equal to AutoTokenizer's" in out.err
    (tmp_path / "empty.txt").write_text("\n \n", encoding="utf-8")
    assert main(["stages", "--model", f"hf:{folder}", "--input-file", f"text={tmp_path / 'empty.txt'}"]) == 2
    assert "holds no text: write one text per line." in capsys.readouterr().err
