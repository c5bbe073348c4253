"""Snapshot format 2: any set of named token streams, plus the texts typed and the adapter's name."""

from dataclasses import replace

import pytest

from tfdebug.core.errors import SnapshotError
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.recording import FORMAT_VERSION
from tfdebug.io.snapshot import open_snapshot, read_manifest, save_snapshot
from tests.io.test_snapshot_validation import edit_manifest


def prompt_only(recording):
    """The recording relabelled as a decoder-only model's: one `prompt` stream."""
    captures = [c for c in recording.captures if c.name.startswith("dec.0.self_attn.")]
    relabelled = [replace(c, info=replace(c.info, tokens={a: "prompt" for a in c.info.tokens})) for c in captures]
    return replace(recording, captures=relabelled, tokens={"prompt": list(recording.tokens["tgt"])},
                   inputs={"prompt": "我 爱 你"}, adapter="toy-lm", input_labels={"prompt": "Prompt"})


def test_a_prompt_only_pass_round_trips_with_its_inputs_and_adapter(recording, tmp_path):
    path = tmp_path / "lm.safetensors"
    save_snapshot(prompt_only(recording), path)
    doc = read_manifest(path)
    assert doc["format_version"] == FORMAT_VERSION == 3
    assert doc["tokens"] == {"prompt": ["<bos>", "我", "爱", "你"]}
    assert doc["inputs"] == {"prompt": "我 爱 你"} and doc["adapter"] == "toy-lm"
    with open_snapshot(path) as back:
        assert back.tokens == {"prompt": ["<bos>", "我", "爱", "你"]}
        assert back.inputs == {"prompt": "我 爱 你"} and back.adapter == "toy-lm"
        assert back.input_labels == {"prompt": "Prompt"}  # a replay names its field as the adapter did
        assert back["dec.0.self_attn.probs"].info.tokens == {"query": "prompt", "key": "prompt"}


@pytest.mark.parametrize("suffix", [".npz", ".pt"])
def test_exports_keep_the_streams(recording, tmp_path, suffix):
    path = tmp_path / f"lm{suffix}"
    export_pass(prompt_only(recording), path)
    back = load_export(path)
    assert back.tokens == {"prompt": ["<bos>", "我", "爱", "你"]} and back.adapter == "toy-lm"


def test_translator_streams_are_written_as_named_streams(snapshot_path):
    doc = read_manifest(snapshot_path)
    assert doc["tokens"] == {"src": ["i", "love", "you"], "tgt": ["<bos>", "我", "爱", "你"]}
    assert doc["adapter"] == "reference"  # the adapter that tapped the model


def test_control_characters_in_tokens_are_stored_escaped(recording, tmp_path):
    rec = replace(recording, tokens={"src": ["i", "lo\nve", "you"], "tgt": recording.tokens["tgt"]},
                  inputs={"src": "i lo\x1bve you"})
    path = tmp_path / "escaped.safetensors"
    save_snapshot(rec, path)
    with open_snapshot(path) as back:
        assert back.tokens["src"] == ["i", "lo\\nve", "you"] and back.inputs["src"] == "i lo\\x1bve you"


V2_CASES = {
    "tokens empty": lambda m: m.update(tokens={}),
    "a stream is not a list": lambda m: m["tokens"].update(src="i love you"),
    "a token is not text": lambda m: m["tokens"]["src"].__setitem__(0, 7),
    "a stream name with a slash": lambda m: m["tokens"].update({"../x": []}),
    "too many streams": lambda m: m["tokens"].update({f"s{i}": [] for i in range(20)}),
    "a 300-character token": lambda m: m["tokens"]["src"].__setitem__(0, "w" * 300),
    "inputs not a map": lambda m: m.update(inputs=["i love you"]),
    "an input not text": lambda m: m.update(inputs={"src": 3}),
    "adapter not text": lambda m: m.update(adapter={"name": "x"}),
    "input labels not a map": lambda m: m.update(input_labels=["Source sentence"]),
    "an input label not text": lambda m: m.update(input_labels={"src": 3}),
    "an input label with a control character": lambda m: m.update(input_labels={"src": "Source\x1b[2J"}),
    "an input label for a bad field name": lambda m: m.update(input_labels={"../x": "Source"}),
    "a stage labelled with a stream the file lacks": lambda m: m["tokens"].pop("tgt"),
}


@pytest.mark.parametrize("case", sorted(V2_CASES))
def test_bad_v2_token_streams_are_one_sentence(case, snapshot_bytes, tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, V2_CASES[case]))
    with pytest.raises(SnapshotError) as info:
        open_snapshot(path).close()
    assert "damaged manifest" in info.value.message and "\n" not in info.value.message


def test_a_v1_manifest_must_hold_exactly_src_and_tgt(snapshot_bytes, tmp_path):
    path = tmp_path / "v1.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m.update(format_version=1)))
    with open_snapshot(path) as rec:
        assert rec.inputs == {} and set(rec.tokens) == {"src", "tgt"}
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m.update(format_version=1, tokens={
        **m["tokens"], "prompt": ["x"]})))
    with pytest.raises(SnapshotError, match="src and tgt"):
        open_snapshot(path)
