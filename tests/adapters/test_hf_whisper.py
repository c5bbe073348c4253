"""Whisper: an audio file through the feature extractor, the encoder over audio frames, the decoder's masked
self-attention and cross-attention, checked against the unmodified model's own outputs."""

from __future__ import annotations

import subprocess
import sys
import wave

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from tfdebug.adapters.hf.speech import WhisperAdapter, read_audio, sample_audio  # noqa: E402
from tfdebug.core.errors import InputError  # noqa: E402
from tfdebug.core.images import InputImage  # noqa: E402
from tfdebug.core.recorder import Recorder  # noqa: E402
from tfdebug.demo.make_tiny_speech import RATE, tones, word_tokenizer, write_wav  # noqa: E402


def tiny_whisper():
    tokenizer = word_tokenizer()
    extractor = transformers.WhisperFeatureExtractor(feature_size=40, sampling_rate=RATE, chunk_length=2)
    config = transformers.WhisperConfig(vocab_size=len(tokenizer), num_mel_bins=40, d_model=32, encoder_layers=2,
                                        decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                                        encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=100,
                                        max_target_positions=16, pad_token_id=0, bos_token_id=2, eos_token_id=3,
                                        decoder_start_token_id=2, init_std=0.1)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.WhisperForConditionalGeneration(config).eval()
    return model, extractor, tokenizer


def test_every_attention_and_the_logits_equal_the_models_own_outputs(tmp_path):
    model, extractor, tokenizer = tiny_whisper()
    adapter = WhisperAdapter(model, extractor, tokenizer)
    path = tmp_path / "tones.wav"
    write_wav(path, tones())
    prepared = adapter.prepare({"audio": str(path), "tgt": "a low tone"})
    # The features are what the model's own feature extractor makes of the samples.
    own = extractor(tones().astype(np.float32) / 32767, sampling_rate=RATE, return_tensors="pt")["input_features"]
    assert torch.equal(prepared.kwargs["input_features"], own)
    assert prepared.kwargs["decoder_input_ids"].tolist() == [[2, *tokenizer("a low tone",
                                                                          add_special_tokens=False)["input_ids"]]]
    assert prepared.tokens["src"][:3] == ["0.00 s", "0.02 s", "0.04 s"] and len(prepared.tokens["src"]) == 100
    picture = prepared.image
    assert picture.grid == (1, 100) and picture.seconds == 2.0 and picture.size == (40, 200)
    with torch.no_grad(), Recorder(adapter.module) as rec:
        output = adapter.forward(prepared)
    stages = {c.name: c for c in rec.captures}
    names = list(stages)
    assert names[:5] == ["src.mel", "src.conv1", "src.conv2", "src.pos_embed", "src.pos"]
    assert torch.equal(stages["src.mel"].tensor, own)
    for name in ("enc.0.attn.q_split", "enc.0.attn.scaled", "enc.1.attn.probs", "enc.norm", "tgt.embed", "tgt.pos",
                 "dec.0.self_attn.masked", "dec.1.cross_attn.probs", "dec.1.cross_attn.out", "dec.norm", "logits"):
        assert name in stages, name
    assert stages["dec.0.cross_attn.probs"].info.tokens == {"query": "tgt", "key": "src"}
    assert stages["dec.0.cross_attn.probs"].tensor.shape == (1, 4, 4, 100)
    with torch.no_grad():
        model.config._attn_implementation = "eager"
        reference = model(input_features=own, decoder_input_ids=prepared.kwargs["decoder_input_ids"],
                          output_attentions=True, output_hidden_states=True)
    for field, block in (("encoder_attentions", "enc.{i}.attn"), ("decoder_attentions", "dec.{i}.self_attn"),
                         ("cross_attentions", "dec.{i}.cross_attn")):
        expected = getattr(reference, field)
        assert len(expected) == 2
        for i, probs in enumerate(expected):
            seen = stages[block.format(i=i) + ".probs"].tensor
            assert seen.shape == probs.shape
            assert float((seen - probs).abs().max()) <= 1e-5, (field, i)
    # The sinusoidal positions added to the front end's output are the encoder's first hidden state.
    assert float((stages["src.pos"].tensor - reference.encoder_hidden_states[0]).abs().max()) <= 1e-5
    assert float((stages["logits"].tensor - reference.logits).abs().max()) <= 1e-5
    verification = adapter.verify(prepared, output)
    assert verification.ok and verification.max_abs_diff == 0.0
    assert {"logits", "enc.1.attn.probs", "dec.1.self_attn.probs", "dec.1.cross_attn.probs"} <= set(verification.checked)


def test_generation_feeds_the_audio_once_and_each_step_equals_the_models_own_logits(tmp_path):
    model, extractor, tokenizer = tiny_whisper()
    adapter = WhisperAdapter(model, extractor, tokenizer)
    path = tmp_path / "tones.wav"
    write_wav(path, tones())
    prepared = adapter.prepare({"audio": str(path), "tgt": ""})
    decoder = adapter.step_decoder(prepared)
    ids = list(decoder.prompt_ids)
    with torch.no_grad():
        step = decoder.feed(ids)
        for _ in range(3):  # the cached step against the whole sequence run again by the model
            expected = model(input_features=prepared.kwargs["input_features"],
                             decoder_input_ids=torch.tensor([ids])).logits[0, -1]
            assert float((step - expected).abs().max()) <= 1e-5
            ids.append(int(step.argmax()))
            step = decoder.feed(ids[-1:])


def test_audio_files_are_read_as_mono_and_a_non_wav_says_what_it_needs(tmp_path):
    stereo = tmp_path / "stereo.wav"
    with wave.open(str(stereo), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(bytes([128, 255] * 800))  # left silent, right at the top: the mix is half way
    samples, rate = read_audio(stereo)
    assert rate == 8000 and samples.shape == (800,)
    assert np.allclose(samples, 127 / 128 / 2)
    flac = tmp_path / "clip.flac"
    flac.write_bytes(b"fLaC" + bytes(64))
    try:
        import soundfile  # noqa: F401
    except ImportError:
        with pytest.raises(InputError) as refused:
            read_audio(flac)
        assert refused.value.id == "audio.needs_soundfile"


def test_a_snapshot_carries_the_spectrogram_with_its_duration():
    picture = InputImage(np.zeros((1, 80, 3000, 3), np.uint8), (1, 1500), (), "src", 30.0)
    again = InputImage.from_manifest(picture.to_manifest())
    assert again.seconds == 30.0 and again.grid == (1, 1500) and again.prefix == ()
    with pytest.raises(ValueError):
        InputImage.from_manifest({**picture.to_manifest(), "seconds": -1})


def test_the_bundled_tiny_whisper_is_captured_and_generates_from_the_cli(tmp_path):
    out = tmp_path / "whisper.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", "tiny-whisper", "--audio",
                           str(sample_audio()), "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "verified: max |Δ| = 0.0e+00" in done.stdout
    assert "input equal to AutoFeatureExtractor's" in done.stdout
    made = subprocess.run([sys.executable, "-m", "tfdebug", "generate", "--model", "tiny-whisper", "--audio",
                           str(sample_audio()), "--max-new-tokens", "3"], capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    assert len(made.stdout.strip().splitlines()[-1].split()) == 3
