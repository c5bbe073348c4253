"""Sound files that lie (issue 53, item 2), through the speech adapter's reader: one sentence each."""

from __future__ import annotations

import struct
import sys
import types

import pytest

pytest.importorskip("transformers")
from tfdebug.adapters.hf.speech import read_audio  # noqa: E402
from tfdebug.core.errors import InputError  # noqa: E402
from tests.core.test_wav import wav_bytes  # noqa: E402


@pytest.mark.parametrize("data,words", [
    (wav_bytes(rate=1), "sampling rate is 1 Hz"),
    (wav_bytes(rate=0), "sampling rate is 0 Hz"),
    (wav_bytes(extra=b"LIST" + struct.pack("<I", 2**32 - 1)), "claims 4,294,967,295 bytes"),
    (wav_bytes(rate=8000, bits=8, body=bytes(8000 * 7500)), "lasts 7,500 s"),
])
def test_each_lying_wav_is_one_sentence(tmp_path, data, words):
    path = tmp_path / "clip.wav"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        read_audio(path)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_other_formats_are_held_to_the_same_limits_before_they_are_decoded(tmp_path, monkeypatch):
    decoded = []
    fake = types.SimpleNamespace(
        info=lambda f: types.SimpleNamespace(samplerate=8000, channels=1, frames=8000 * 3600 * 5),
        read=lambda *a, **k: decoded.append(a))
    monkeypatch.setitem(sys.modules, "soundfile", fake)
    path = tmp_path / "clip.flac"
    path.write_bytes(b"fLaC" + bytes(64))
    with pytest.raises(InputError, match="lasts 18,000 s"):
        read_audio(path)
    assert decoded == []
