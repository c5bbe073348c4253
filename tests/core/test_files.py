"""core.files and core.foreign: bounded reads of named files, and other libraries' failures as one sentence."""

from __future__ import annotations

import json
import os

import pytest

from tfdebug.core.errors import ModelLoadError, TfdebugError
from tfdebug.core.files import nesting_depth, read_bounded, read_json, read_text
from tfdebug.core.foreign import foreign_call


def test_a_file_within_its_limit_is_read_whole(tmp_path):
    (tmp_path / "a.json").write_text('{"a": [1, {"b": 2}]}')
    assert read_json(tmp_path / "a.json", 100, ModelLoadError) == {"a": [1, {"b": 2}]}
    assert read_bounded(tmp_path / "a.json", 20, ModelLoadError) == b'{"a": [1, {"b": 2}]}'


@pytest.mark.parametrize("kind,words", [("fifo", "not a regular file"), ("dev-zero", "not a regular file"),
                                        ("folder", "is a folder"), ("missing", "There is no file"),
                                        ("large", "was not read"), ("sparse", "was not read"),
                                        ("latin-1", "not UTF-8"), ("deep", "nests more than"),
                                        ("very deep", "nests more than"), ("list", "not hold a JSON object"),
                                        ("broken", "not valid JSON")])
def test_each_unreadable_file_is_one_sentence(tmp_path, kind, words):
    path = tmp_path / "f.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "large":
        path.write_bytes(b" " * 101)
    elif kind == "sparse":
        with open(path, "wb") as f:
            f.truncate(8 << 30)
    elif kind == "latin-1":
        path.write_bytes(b'{"a": "\xe9"}')
    elif kind in ("deep", "very deep"):
        depth = 65 if kind == "deep" else 100_000
        path.write_text('{"a": ' + "[" * depth + "]" * depth + "}")
    elif kind == "list":
        path.write_text("[]")
    elif kind == "broken":
        path.write_text('{"a": ')
    limit = 100 if kind == "large" else 1 << 20
    with pytest.raises(ModelLoadError, match=words) as info:
        read_json(path, limit, ModelLoadError)
    assert "\n" not in info.value.message


def test_nesting_depth_counts_without_recursion():
    doc = []
    for _ in range(50_000):
        doc = [doc]
    assert nesting_depth(doc, 100) == 100 and nesting_depth({"a": {"b": [1]}}, 10) == 3
    assert json.loads("[]") == [] and nesting_depth(1, 5) == 0


def test_read_text_strips_nothing_and_decodes_utf8(tmp_path):
    (tmp_path / "t.txt").write_text("我 爱 你\n", encoding="utf-8")
    assert read_text(tmp_path / "t.txt", 100, ModelLoadError) == "我 爱 你\n"


class PanicException(BaseException):  # what pyo3 raises for a Rust panic
    pass


@pytest.mark.parametrize("failure", [ValueError("bad\nsecond line"), ZeroDivisionError(), KeyError("metadata"),
                                     RecursionError("deep"), MemoryError(), PanicException("\x1b[2Jpanicked")])
def test_a_foreign_failure_becomes_one_escaped_sentence(failure):
    with pytest.raises(ModelLoadError) as info:
        with foreign_call(ModelLoadError, "Loading failed: {reason}.", id="test.failed"):
            raise failure
    message = info.value.message
    assert message.startswith("Loading failed: ") and "\n" not in message and "\x1b" not in message


def test_tfdebug_errors_and_interrupts_pass_through():
    with pytest.raises(TfdebugError, match="own"):
        with foreign_call(ModelLoadError, "{reason}", id="test.failed"):
            raise TfdebugError("own sentence")
    with pytest.raises(KeyboardInterrupt):
        with foreign_call(ModelLoadError, "{reason}", id="test.failed"):
            raise KeyboardInterrupt


def test_a_native_panic_inside_the_forward_fails_the_pass_in_words():
    # A Rust or C++ extension's panic is a BaseException: the forward thread must not die silently.
    from tfdebug.core.errors import ForwardFailedError
    from tfdebug.core.stepper import FAILED, Stepper
    from tfdebug.models.loader import load_model

    loaded = load_model("random")

    def panic(module, inputs, output):
        raise PanicException("tokenizer panicked at 'byte index 3 is not a char boundary'")

    handle = loaded.model.transformer.decoder.layers[0].feed_forward.w1.register_forward_hook(panic)
    try:
        prepared = loaded.prepare("I love you", "我")
        stepper = Stepper(loaded.model, lambda: loaded.model(prepared.src, prepared.tgt))
        stepper.start()
        stepper.wait()
        stepper.continue_()
        assert stepper.wait() == FAILED
        assert isinstance(stepper.error, ForwardFailedError) and "panicked" in stepper.error.message
    finally:
        handle.remove()
