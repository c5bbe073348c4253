"""WAV files that lie (issue 53, item 2): the header is checked against the file's size and against the
stated limits before a sample is converted; each refusal is one InputError sentence."""

from __future__ import annotations

import struct
import wave

import numpy as np
import pytest

from tfdebug.core.errors import InputError
from tfdebug.core.wav import AUDIO_LIMITS, parse_wav


def wav_bytes(rate: int = 16_000, channels: int = 1, bits: int = 16, tag: int = 1, body: bytes = b"\0\0" * 160,
              extra: bytes = b"", align: int | None = None) -> bytes:
    """A RIFF WAVE file with the header fields given as they are (no check: a lying header)."""
    align = (channels * bits // 8 if align is None else align) & 0xFFFF
    fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * align & 0xFFFFFFFF, align, bits)
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra + b"data" + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


def refused(data: bytes) -> str:
    with pytest.raises(InputError) as caught:
        parse_wav(data, "clip.wav")
    text = str(caught.value)
    assert text.startswith("clip.wav is not a WAV file tfdebug reads: ") and "\n" not in text
    return text


def test_a_header_saying_1_hz_or_0_hz_is_one_sentence():
    assert "sampling rate is 1 Hz (tfdebug reads 1,000–384,000 Hz)" in refused(wav_bytes(rate=1))
    assert "sampling rate is 0 Hz" in refused(wav_bytes(rate=0))
    assert "sampling rate is 4,294,967,295 Hz" in refused(wav_bytes(rate=0xFFFFFFFF))


def test_a_list_chunk_claiming_4_gib_is_one_sentence():
    lying = b"LIST" + struct.pack("<I", 0xFFFFFFFF) + b"INFO"
    assert "a chunk (LIST) claims 4,294,967,295 bytes but only" in refused(wav_bytes(extra=lying))


def test_a_data_chunk_longer_than_the_file_is_one_sentence():
    data = wav_bytes(body=b"\0" * 100)
    assert "claims 100 bytes but only 60 follow" in refused(data[:-40])


def test_a_very_long_8_bit_file_is_refused_before_its_samples_are_converted(tmp_path):
    # 2 h 5 min of 8-bit mono at 8 kHz: 60 MB, under the 64 MiB read bound, over the 10-minute limit.
    data = wav_bytes(rate=8000, bits=8, body=bytes(8000 * 7500))
    assert "it lasts 7,500 s (tfdebug reads at most 600 s" in refused(data)


@pytest.mark.parametrize("fields,words", [
    ({"channels": 0}, "0 channels"), ({"channels": 1000, "align": 2000}, "1000 channels"),
    ({"bits": 24}, "format 1 with 24 bits"), ({"tag": 2}, "format 2 with 16 bits"),
    ({"align": 7}, "block size 7"), ({"body": b""}, "holds no samples"),
    ({"tag": 3, "bits": 32, "body": struct.pack("<f", float("nan")) * 4}, "NaN or infinity"),
])
def test_other_lies_are_one_sentence(fields, words):
    assert words in refused(wav_bytes(**fields))


def test_not_riff_or_without_chunks_is_one_sentence():
    assert "RIFF WAVE header" in refused(b"RIFF\0\0\0\0AVI ")
    no_fmt = b"RIFF" + struct.pack("<I", 12) + b"WAVE" + b"data" + struct.pack("<I", 0)
    assert "no format chunk" in refused(no_fmt)


def test_what_the_standard_library_writes_reads_as_before(tmp_path):
    path = tmp_path / "stereo.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(22_050)
        out.writeframes(np.array([[0, 32767]] * 441, dtype="<i2").tobytes())
    samples, rate = parse_wav(path.read_bytes(), str(path))
    assert rate == 22_050 and samples.dtype == np.float32 and samples.shape == (441,)
    assert np.allclose(samples, 0.5)
    floats, _ = parse_wav(wav_bytes(tag=3, bits=32, body=np.full(10, -0.25, "<f4").tobytes()), "f.wav")
    assert np.array_equal(floats, np.full(10, -0.25, np.float32))


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


def _check(data: bytes) -> None:
    try:
        samples, rate = parse_wav(data, "x.wav")
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    assert AUDIO_LIMITS.min_rate <= rate <= AUDIO_LIMITS.max_rate
    assert samples.dtype == np.float32 and samples.ndim == 1 and samples.size
    assert samples.size / rate <= AUDIO_LIMITS.max_seconds
    assert np.isfinite(samples).all()  # PCM in −1…1; float samples as stored (finite, may pass ±1)
    assert struct.unpack_from("<H", data, 20)[0] in (3, 0xFFFE) or float(np.abs(samples).max()) <= 1.0


@FUZZ
@given(rate=st.integers(0, 2**32 - 1), channels=st.integers(0, 2**16 - 1), bits=st.sampled_from([0, 8, 16, 24, 32, 64]),
       tag=st.sampled_from([0, 1, 2, 3, 0xFFFE]), align=st.one_of(st.none(), st.integers(0, 2**16 - 1)),
       body=st.binary(max_size=256))
def test_any_header_gives_samples_within_the_limits_or_one_sentence(rate, channels, bits, tag, align, body):
    _check(wav_bytes(rate=rate, channels=channels, bits=bits, tag=tag, align=align, body=body))


@FUZZ
@given(base=st.sampled_from([wav_bytes(), wav_bytes(rate=8000, bits=8, channels=2, body=bytes(64)),
                             wav_bytes(tag=3, bits=32, body=bytes(40))]),
       edits=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), max_size=8),
       cut=st.integers(0, 400))
def test_mutated_files_give_samples_or_one_sentence(base, edits, cut):
    data = bytearray(base)
    for at, value in edits:
        if at < len(data):
            data[at] = value
    _check(bytes(data[: max(0, len(data) - cut)] if cut < len(data) else data))
