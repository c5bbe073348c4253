"""Whisper (speech encoder–decoders) as an adapter: an audio file in, every stage of both stacks tapped.

The input is the path of a WAV file (`--audio FILE`, the window's Audio field; FLAC too where the
optional `soundfile` package is installed), read bounded and parsed by `core.wav` (header, chunk sizes and
limits checked before a sample is converted),
mixed to mono and brought to the feature extractor's sampling rate, then prepared by the model's own
feature extractor (`WhisperFeatureExtractor`: padded or cut to its window, log-mel spectrogram). The
decoder input is `decoder_start_token_id` and any text typed after it, tokenized by the model's own
tokenizer. Stages (`WhisperPlanner`): `src.mel` (the spectrogram, the encoder's input), `src.conv1`,
`src.conv2` (the convolutional front end; the second halves the frames), `src.pos_embed` and `src.pos`
(sinusoidal positions added), `enc.{i}.attn.*` over audio frames, `enc.norm`, then the decoder as for
a text encoder–decoder: `tgt.*`, `dec.{i}.self_attn.*` (masked), `dec.{i}.cross_attn.*` (each token's
attention over audio time), `dec.norm`, `logits`. The encoder's token axis is labelled by time
('0.42 s'); the spectrogram is drawn as a picture one frame wide per encoder position
(`core.images.InputImage` with its duration), so the Image dock draws a token's cross-attention
over it. Verified like a text model: the features against a second feature extractor loaded apart,
every layer's probabilities (encoder, decoder, cross) and inputs against the unmodified model.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch
from torch import Tensor, nn

from tfdebug.adapters.base import InputField, Prepared
from tfdebug.adapters.hf.adapter import HFAdapter
from tfdebug.adapters.hf.builder import STREAM
from tfdebug.adapters.hf.folder import MAX_CONFIG_BYTES, inside
from tfdebug.adapters.hf.load import quiet_transformers, require_transformers
from tfdebug.adapters.hf.match import close
from tfdebug.adapters.hf.match import refuse as _refuse
from tfdebug.adapters.hf.names import Planner
from tfdebug.adapters.hf.probe import Call, probe
from tfdebug.core.errors import InputError, ModelLoadError
from tfdebug.core.files import read_bounded, read_json
from tfdebug.core.foreign import foreign_call
from tfdebug.core.images import InputImage
from tfdebug.core.model_lock import forward_lock
from tfdebug.core.phrases import Phrase
from tfdebug.core.wav import AUDIO_LIMITS, parse_wav

MAX_AUDIO_BYTES = 64 * 2**20
SAMPLE_AUDIO = "samples/tones.wav"
MEL_AXES = ("batch", "mel", "frame")
CONV_AXES = ("batch", "model", "token")


def sample_audio() -> Path:
    """The clip the project makes for its presets (resources/samples/tones.wav)."""
    from importlib.resources import files

    return Path(str(files("tfdebug.resources"))) / SAMPLE_AUDIO


def read_audio(path: str | Path) -> tuple[np.ndarray, int]:
    """(samples as float32 in −1…1, mono; sampling rate) of the WAV file `path` (FLAC and others with the optional
    soundfile package), read bounded."""
    data = read_bounded(path, MAX_AUDIO_BYTES, InputError)
    if data[:4] == b"RIFF":
        return parse_wav(data, str(path))
    try:
        import soundfile
    except ImportError:
        raise InputError("{path} is not a WAV file; other audio files (FLAC …) need the soundfile package: "
                         "pip install soundfile.", id="audio.needs_soundfile", path=str(path)) from None
    try:
        info = soundfile.info(io.BytesIO(data))
        problem = AUDIO_LIMITS.problem(info.samplerate, info.channels, info.frames)
        if problem:
            raise InputError("{path} is not an audio file tfdebug reads: {problem}.", id="audio.refused",
                             path=str(path), problem=problem)
        samples, rate = soundfile.read(io.BytesIO(data), dtype="float32", always_2d=True)
    except (RuntimeError, ValueError, TypeError) as exc:  # soundfile.LibsndfileError is a RuntimeError
        raise InputError("{path} is not an audio file soundfile can read ({reason}).", id="audio.unreadable_sf",
                         path=str(path), reason=str(exc)[:200]) from None
    return samples.mean(axis=1), int(rate)


def resampled(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    """`samples` at `rate` brought to `target` samples per second by linear interpolation (as they are when equal)."""
    if rate == target or samples.size == 0:
        return samples
    n = max(1, round(samples.size * target / rate))
    return np.interp(np.arange(n) * (rate / target), np.arange(samples.size), samples).astype(np.float32)


def spectrogram_picture(features: Tensor, positions: int, seconds: float) -> InputImage:
    """The log-mel features (1, mels, frames) as an RGB picture (low mel at the bottom), one column group per
    encoder position: an `InputImage` of one row of `positions` 'patches' spanning `seconds`."""
    x = features[0].detach().float().cpu().numpy()[::-1]  # (mels, frames), high frequencies on top
    low, high = float(x.min()), float(x.max())
    t = (x - low) / (high - low) if high > low else np.zeros_like(x)
    # dark blue → magenta → yellow: a perceptual ramp of three stops, enough to read a spectrogram
    stops = np.array([[20, 12, 60], [180, 40, 120], [250, 230, 90]], dtype=np.float32)
    i = np.clip(t * 2, 0, 2)
    lo = np.floor(i).clip(0, 1).astype(int)
    frac = (i - lo)[..., None]
    rgb = stops[lo] * (1 - frac) + stops[lo + 1] * frac
    return InputImage(rgb.round().astype(np.uint8)[None], (1, positions), (), "src", seconds)


class WhisperPlanner(Planner):
    """The generic encoder–decoder planner with Whisper's audio front end instead of token embeddings."""

    def embeddings(self, stack: str, container: Call, first_layer: Call, within: str | None) -> str:
        if stack != "enc":
            return super().embeddings(stack, container, first_layer, within)
        region = [c for c in self.record.calls[container.index + 1: first_layer.index] if c.attention is None]
        convs = [c for c in region if isinstance(c.module, nn.Conv1d)]
        positions = next((c for c in region if isinstance(c.module, nn.Embedding)), None)
        if len(convs) != 2 or positions is None:
            raise _refuse("cannot find {model}'s two convolutions and position embeddings before {path}.",
                          "no_audio_front_end", model=type(self.model).__name__, path=first_layer.path)
        conv1, conv2 = convs
        frames = {"token": "src"}
        b = self.b
        stride = conv2.module.stride[0]
        b.input(conv1.path, "src.mel", "embedding", MEL_AXES, "log-mel spectrogram  (the feature extractor's "
                "output: one column per hop)", {}, within)
        b.output(conv1.path, "src.conv1", "embedding", ("batch", "model", "frame"),
                 f"Conv1d(mel, kernel {conv1.module.kernel_size[0]})", {}, within, inputs=("src.mel",))
        b.output(conv2.path, "src.conv2", "embedding", CONV_AXES, f"Conv1d(GELU(·), kernel "
                 f"{conv2.module.kernel_size[0]}, stride {stride})  (one column per encoder position)", frames,
                 within, inputs=("src.conv1",))
        b.output(positions.path, "src.pos_embed", "positional_encoding", ("token", "model"),
                 "P[pos]  (sinusoidal)", frames, within)
        expected = nn.functional.gelu(conv2.out).permute(0, 2, 1) + positions.out
        if not close(first_layer.input, expected):
            raise _refuse("cannot tell how {model}'s audio front end becomes the input of {path}.",
                          "embedding_unclear", model=type(self.model).__name__, path=first_layer.path)
        b.input(first_layer.path, "src.pos", "positional_add", STREAM, "GELU(conv2)ᵀ + P[pos]", frames, within,
                inputs=("src.conv2", "src.pos_embed"))
        return "src.pos"


class WhisperAdapter(HFAdapter):
    """A Whisper model with every stage tapped; its inputs an audio file and the decoder's text so far."""

    kind = "hf-speech"

    def __init__(self, model: nn.Module, feature_extractor: Any, tokenizer: Any, name: str = "hf",
                 folder: Path | None = None):
        self.feature_extractor = feature_extractor
        super().__init__(model, tokenizer, name, folder)
        self.inputs = (InputField("audio", "Audio", "a WAV file (FLAC with the soundfile package)", kind="audio"),
                       InputField("tgt", "Decoder input", "text the decoder has produced so far", required=False))
        self.site_titles = {**self.site_titles, "src": "Audio front end"}
        sample = sample_audio()
        self.presets = ({"audio": str(sample), "tgt": ""},) if sample.is_file() else ()
        self.generation_presets = self.presets

    def _plan(self, model: nn.Module):
        return whisper_tap_plan(model, self.feature_extractor)

    def config(self) -> dict:
        return {**super().config(), "audio_input": True}

    def can_chat(self) -> bool:
        return False

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        """The audio read, mixed to mono and resampled, then `feature_extractor(audio, sampling_rate=…,
        return_tensors="pt")`; the decoder input `[decoder_start_token_id] + tokenizer(tgt)`."""
        texts = self.check_texts(texts)
        path = Path(texts["audio"].strip()).expanduser()
        samples, rate = read_audio(path)
        extractor = self.feature_extractor
        target = extractor.sampling_rate
        notes = []
        if rate != target:
            notes.append(Phrase("The audio has {rate} samples per second; it was resampled to the {target} the "
                                "model's feature extractor takes.", id="audio.resampled", rate=rate, target=target))
        audio = resampled(samples, rate, target)
        window = extractor.n_samples / target
        if audio.size > extractor.n_samples:
            notes.append(Phrase("The audio is {seconds} s long; the model reads its first {window} s.",
                                id="audio.cut", seconds=f"{audio.size / target:.1f}", window=f"{window:g}"))
        with quiet_transformers(), foreign_call(InputError, "The feature extractor of {name} cannot prepare {path}: "
                                                "{reason}", id="audio.extractor_failed", name=self.name,
                                                path=str(path)):
            features = extractor(audio, sampling_rate=target, return_tensors="pt")["input_features"]
        start = self.model.config.decoder_start_token_id
        typed = texts.get("tgt", "").strip()
        ids = [start] + (self._call((typed,), special=False)[1]["input_ids"][0].tolist() if typed else [])
        kwargs = {"input_features": features.to(self.device, self.dtype), "decoder_input_ids": self._ids(ids),
                  "use_cache": False}
        self._check_ids(kwargs)
        picture = spectrogram_picture(features, self.model.config.max_source_positions, window)
        tokens = {"src": picture.token_labels(), "tgt": [self._id_label(i) for i in ids]}
        return Prepared(texts=texts, kwargs=kwargs, tokens=tokens, notes=notes, options={"audio": str(path)},
                        image=picture)

    def prepare_batch(self, rows: Sequence[Mapping[str, str]]) -> Prepared:
        if len(rows) == 1:
            return self.prepare(rows[0])
        raise InputError("{name} takes one audio file at a time.", id="audio.no_batch", name=self.name)

    def input_problem(self, prepared: Prepared) -> tuple[str, str]:
        """("" or how the features differ, what they were checked against): a second `AutoFeatureExtractor` of
        the folder on the file read again (nothing to check without a folder)."""
        if self.folder is None or "audio" not in prepared.options:
            return "", ""
        extractor = folder_feature_extractor(self.folder)
        samples, rate = read_audio(prepared.options["audio"])
        with quiet_transformers():
            again = extractor(resampled(samples, rate, extractor.sampling_rate),
                              sampling_rate=extractor.sampling_rate, return_tensors="pt")["input_features"]
        given = prepared.kwargs["input_features"].detach().cpu()
        if given.shape != again.shape or not torch.equal(given, again.to(given.dtype)):
            return Phrase("The model was given other features than {what} makes from {path}.",
                          id="audio.input_differs", what="AutoFeatureExtractor", path=prepared.options["audio"]), \
                "AutoFeatureExtractor"
        return "", "AutoFeatureExtractor"

    def describe(self) -> str:
        return f"{self.name} ({self.model.config.model_type}, audio) on {self.device} " \
               f"({str(self.dtype).removeprefix('torch.')})"


def whisper_tap_plan(model: nn.Module, feature_extractor: Any):
    """The taps and hooks of a Whisper model, probed on silence of its window's length and one decoder token."""
    frames = feature_extractor.nb_max_frames
    parameter = next(model.parameters())
    silence = torch.zeros(1, feature_extractor.feature_size, frames, dtype=parameter.dtype, device=parameter.device)
    start = torch.tensor([[model.config.decoder_start_token_id]], device=parameter.device)
    with forward_lock(model), quiet_transformers():
        record = probe(model, {"input_features": silence, "decoder_input_ids": start})
    return WhisperPlanner(model, record).plan()


def folder_feature_extractor(folder: Path):
    """`AutoFeatureExtractor.from_pretrained(folder)` (local files only), its config read bounded first."""
    from transformers import AutoFeatureExtractor

    read_json(inside(folder, "preprocessor_config.json"), MAX_CONFIG_BYTES, ModelLoadError)
    with quiet_transformers(), foreign_call(ModelLoadError, "transformers cannot read the feature extractor in "
                                            "{folder}: {reason}", id="hf.auto_feature_extractor", folder=str(folder)):
        return AutoFeatureExtractor.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)


def load_speech_folder(folder: Path, device, dtype, device_map: str | None = None, name: str = "") -> WhisperAdapter:
    """A Whisper folder (config, weights, tokenizer and feature extractor) as an adapter."""
    from tfdebug.adapters.hf.load import load_folder

    require_transformers()
    extractor = folder_feature_extractor(folder)
    model, tokenizer = load_folder(folder, device, dtype, device_map=device_map)
    return WhisperAdapter(model, extractor, tokenizer, name=name or str(folder), folder=folder)


def load_bundled_speech(spec: str, device, dtype, device_map: str | None = None, download: bool = False):
    """The registry's loader for the bundled tiny Whisper (`tiny-whisper`)."""
    from tfdebug.adapters.hf.load import bundled_folder
    from tfdebug.core.devices import resolve_dtype

    return load_speech_folder(bundled_folder(spec), device, resolve_dtype(dtype), device_map, name=spec)
