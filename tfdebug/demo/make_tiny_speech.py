"""Make the bundled tiny Whisper (resources/tiny-whisper) and the sample audio clip (resources/samples/tones.wav).

    python -m tfdebug.demo.make_tiny_speech [--out resources]

The model is a transformers `WhisperForConditionalGeneration` of 2 encoder and 2 decoder layers, 4
heads, width 64, with random weights from a fixed seed (drawn wider than transformers' default, std
0.1, so that its attention is not uniform), saved with its `WhisperFeatureExtractor` (80 mel bands,
16 kHz, a 2-second window: 200 frames of 10 ms, 100 encoder positions of 20 ms) and a word-level
tokenizer of a few words. Nothing is downloaded: the clip is computed here, three tones (a low hum,
a high beep, then a rising sweep) with silence between them, written as a 16-bit mono WAV file by
the standard library's `wave` module.
"""

from __future__ import annotations

import argparse
import wave
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "resources"
RATE = 16_000
WINDOW = 2  # seconds the model reads
WORDS = "a an the low high tone tones beep hum sweep rises falls then silence one two three and".split()
SPECIAL = ["[PAD]", "[UNK]", "<|startoftranscript|>", "<|endoftext|>"]


def tones(rate: int = RATE) -> np.ndarray:
    """(samples,) int16: 300 Hz from 0.1 to 0.6 s, 1200 Hz from 0.75 to 1.1 s, a sweep 500 → 3000 Hz from 1.25
    to 1.8 s, silence elsewhere (2 s), each tone faded in and out over 10 ms so it does not click."""
    t = np.arange(WINDOW * rate) / rate
    signal = np.zeros_like(t)
    for start, stop, low, high in ((0.1, 0.6, 300, 300), (0.75, 1.1, 1200, 1200), (1.25, 1.8, 500, 3000)):
        part = (t >= start) & (t < stop)
        local = t[part] - start
        span = stop - start
        phase = 2 * np.pi * (low * local + (high - low) * local ** 2 / (2 * span))  # a linear sweep's phase
        fade = np.minimum(1, np.minimum(local, span - local) / 0.01)
        signal[part] = 0.5 * np.sin(phase) * fade
    return (signal * 32767).round().astype(np.int16)


def write_wav(path: Path, samples: np.ndarray, rate: int = RATE) -> None:
    """16-bit mono PCM."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.astype("<i2").tobytes())


def word_tokenizer():
    """A word-level tokenizer of WORDS; the decoder input starts at <|startoftranscript|>, <|endoftext|> ends it."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(SPECIAL + WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   bos_token="<|startoftranscript|>", eos_token="<|endoftext|>")


def make_whisper(folder: Path) -> None:
    """A random tiny Whisper, its feature extractor and tokenizer, saved with save_pretrained (safetensors)."""
    import torch
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration

    torch.manual_seed(0)
    extractor = WhisperFeatureExtractor(feature_size=80, sampling_rate=RATE, chunk_length=WINDOW)
    config = WhisperConfig(vocab_size=len(SPECIAL) + len(WORDS), num_mel_bins=80, d_model=64, encoder_layers=2,
                           decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                           decoder_ffn_dim=128, max_source_positions=extractor.nb_max_frames // 2,
                           max_target_positions=32, pad_token_id=0, bos_token_id=2, eos_token_id=3,
                           decoder_start_token_id=2, init_std=0.1, suppress_tokens=[], begin_suppress_tokens=[])
    model = WhisperForConditionalGeneration(config).eval()
    model.generation_config.forced_decoder_ids = None
    model.save_pretrained(folder, safe_serialization=True)
    extractor.save_pretrained(folder)
    word_tokenizer().save_pretrained(folder)
    (folder / "model.safetensors").chmod(0o644)  # save_pretrained writes it owner-only


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the resources folder (default: resources)")
    args = parser.parse_args(argv)
    (args.out / "samples").mkdir(parents=True, exist_ok=True)
    write_wav(args.out / "samples" / "tones.wav", tones())
    make_whisper(args.out / "tiny-whisper")
    print(f"wrote {args.out / 'tiny-whisper'} and {args.out / 'samples' / 'tones.wav'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
