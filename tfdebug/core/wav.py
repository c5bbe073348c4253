"""WAV files as data: a RIFF parser that believes no number before checking it.

A WAV header states its sampling rate, channels, sample width and chunk sizes; each can lie. Python's `wave`
module trusts them (a 1 Hz header asks for gigabytes, 0 Hz divides by zero, a chunk claiming 4 GiB raises a
bare error), so tfdebug reads the RIFF chunks itself: every chunk must fit in the bytes the file holds, the
format must be PCM (8, 16 or 32-bit integers) or 32-bit float, and the rate, channels and duration must lie
within `AUDIO_LIMITS` — all before a sample is converted. Each problem is one InputError sentence.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from tfdebug.core.errors import InputError
from tfdebug.core.phrases import Phrase

PCM, FLOAT, EXTENSIBLE = 1, 3, 0xFFFE


@dataclass(frozen=True)
class AudioLimits:
    """What tfdebug takes as an audio input (docs/limits.md states them)."""

    min_rate: int = 1_000       # samples per second: below, no speech model's features mean anything
    max_rate: int = 384_000     # the highest rate audio hardware records
    max_channels: int = 64
    max_seconds: float = 600.0  # 10 minutes; speech models read 30 s windows

    def problem(self, rate: object, channels: object, frames: int) -> Phrase | None:
        """Why audio of `rate` Hz, `channels` channels and `frames` frames is refused, or None."""
        if not isinstance(rate, int) or not self.min_rate <= rate <= self.max_rate:
            return Phrase("its sampling rate is {rate} Hz (tfdebug reads {low}–{high} Hz)", id="audio.rate",
                          rate=f"{rate:,}" if isinstance(rate, int) else str(rate)[:20], low=f"{self.min_rate:,}",
                          high=f"{self.max_rate:,}")
        if not isinstance(channels, int) or not 1 <= channels <= self.max_channels:
            return Phrase("it has {n} channels (tfdebug reads 1–{most})", id="audio.channels", n=channels,
                          most=self.max_channels)
        if frames / rate > self.max_seconds:
            return Phrase("it lasts {seconds} s (tfdebug reads at most {most} s; cut it to the part to look at)",
                          id="audio.too_long", seconds=f"{frames / rate:,.0f}", most=f"{self.max_seconds:,.0f}")
        return None


AUDIO_LIMITS = AudioLimits()


def _refuse(path: str, problem: Phrase) -> InputError:
    return InputError("{path} is not a WAV file tfdebug reads: {problem}.", id="audio.bad_wav", path=path,
                      problem=problem)


def _chunks(data: bytes, path: str) -> dict[bytes, memoryview]:
    """The RIFF file's chunks by id (the first of each), every size checked against the bytes that follow it."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise _refuse(path, Phrase("it does not start with a RIFF WAVE header", id="audio.no_riff"))
    view, at, found = memoryview(data), 12, {}
    while at + 8 <= len(data):
        kind, size = data[at:at + 4], struct.unpack_from("<I", data, at + 4)[0]
        if size > len(data) - at - 8:
            raise _refuse(path, Phrase("a chunk ({kind}) claims {size} bytes but only {left} follow",
                                       id="audio.chunk_size", kind=repr(bytes(kind))[2:-1], size=f"{size:,}",
                                       left=f"{len(data) - at - 8:,}"))
        found.setdefault(bytes(kind), view[at + 8: at + 8 + size])
        at += 8 + size + (size & 1)
    return found


def parse_wav(data: bytes, path: str, limits: AudioLimits = AUDIO_LIMITS) -> tuple[np.ndarray, int]:
    """(samples as float32 in −1…1 mixed to mono, sampling rate) of the WAV file whose bytes are `data`.

    Header, chunk sizes and `limits` are checked before any sample is converted; memory is then a small
    multiple of the file's own size."""
    chunks = _chunks(data, path)
    fmt, body = chunks.get(b"fmt "), chunks.get(b"data")
    if fmt is None or len(fmt) < 16:
        raise _refuse(path, Phrase("it has no format chunk", id="audio.no_fmt"))
    if body is None:
        raise _refuse(path, Phrase("it has no data chunk", id="audio.no_data"))
    tag, channels, rate, _, align, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag == EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack_from("<H", fmt, 24)[0]  # the sub-format GUID starts with the plain format tag
    if (tag, bits) not in ((PCM, 8), (PCM, 16), (PCM, 32), (FLOAT, 32)):
        raise _refuse(path, Phrase("its samples are format {tag} with {bits} bits (tfdebug reads 8, 16 and 32-bit "
                                   "PCM and 32-bit float)", id="audio.sample_format", tag=tag, bits=bits))
    width = bits // 8
    if channels and align != channels * width:
        raise _refuse(path, Phrase("its block size {align} is not {n} channels × {width} bytes", id="audio.block",
                                   align=align, n=channels, width=width))
    frames = len(body) // (width * channels) if channels else 0
    problem = limits.problem(rate, channels, frames)
    if problem:
        raise _refuse(path, problem)
    if frames == 0:
        raise _refuse(path, Phrase("it holds no samples", id="audio.empty"))
    kind = {(PCM, 8): np.uint8, (PCM, 16): np.dtype("<i2"), (PCM, 32): np.dtype("<i4"),
            (FLOAT, 32): np.dtype("<f4")}[(tag, bits)]
    raw = np.frombuffer(body[: frames * channels * width], dtype=kind).reshape(frames, channels)
    mono = raw.mean(axis=1, dtype=np.float32) if channels > 1 else raw[:, 0].astype(np.float32)
    if tag == FLOAT:
        if not np.isfinite(mono).all():
            raise _refuse(path, Phrase("its float samples hold NaN or infinity", id="audio.not_finite"))
        return mono, rate
    if width == 1:
        return (mono - 128) / 128, rate
    return mono / float(np.iinfo(kind).max), rate
