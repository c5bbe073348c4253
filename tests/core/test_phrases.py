"""Phrases: the English text stays what the CLI prints; the id and values stay for the window to translate."""

import copy
import errno
import pickle

from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import Choices, Phrase, os_reason


def test_a_phrase_is_its_english_text_and_keeps_its_parts():
    where = Phrase("The file {path}", id="where.file", path="/x/a.safetensors")
    error = SnapshotError("{where} is damaged: {problem}.", id="safetensors.bad_name", where=where,
                          problem=Phrase("shape {shape} holds no values", id="limits.shape_empty", shape=(0, 2)))
    assert error.message == "The file /x/a.safetensors is damaged: shape (0, 2) holds no values."
    assert where == "The file /x/a.safetensors" and isinstance(where, str)
    assert (where.template, where.id, where.params) == ("The file {path}", "where.file", {"path": "/x/a.safetensors"})
    assert error.params["problem"].params == {"shape": (0, 2)}
    for clone in (copy.copy(where), pickle.loads(pickle.dumps(where))):
        assert clone == where and clone.id == "where.file" and clone.params == where.params


def test_choices_read_as_english_lists():
    assert Choices([".safetensors", ".npz", ".pt"]) == ".safetensors, .npz or .pt"
    assert Choices([".csv"]) == ".csv" and Choices([".a", ".b"]).items == (".a", ".b")
    assert pickle.loads(pickle.dumps(Choices(["a", "b"]))).items == ("a", "b")


def test_an_os_reason_keeps_the_systems_words_and_adds_an_id_when_known():
    full = os_reason(OSError(errno.ENOSPC, "No space left on device"))
    assert full == "No space left on device" and full.id == "os.no_space"
    odd = os_reason(OSError(errno.EXDEV, "Invalid cross-device link"))
    assert odd == "Invalid cross-device link" and not isinstance(odd, Phrase)  # unknown: raw, not translated
    said = os_reason(OSError(errno.EACCES, "Permission denied"), "[Errno 13] Permission denied: 'v.txt'")
    assert said == "[Errno 13] Permission denied: 'v.txt'" and said.template == "Permission denied"
