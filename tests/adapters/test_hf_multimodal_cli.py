"""Issue 38's acceptance for the image, speech and vision-language families, through the real CLI path.

Each tiny random model (the bundled tiny-vit, tiny-clip, tiny-siglip, tiny-whisper and tiny-llava, and
DINOv2 and DeiT saved as folders) is captured by `tfdebug capture`; the snapshot's every `*.probs` stage
is held against the attentions transformers returns (the same folder loaded by transformers itself, eager
attention) on inputs its own `AutoProcessor`, `AutoImageProcessor` or `AutoFeatureExtractor` prepares
(max |Δ| ≤ 1e-5 in float32), and the mission's stages are there, of the right kind: the (patch)
embedding, the positional addition (or rotary), q/k/v, the head split, the scale, the mask where the
model masks, the softmax and W^O."""

from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")
pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

from tests.adapters.test_hf_vision import deit, dinov2  # noqa: E402
from tfdebug.adapters.hf.load import bundled_folder  # noqa: E402
from tfdebug.adapters.hf.speech import sample_audio  # noqa: E402
from tfdebug.adapters.hf.vision import sample_image  # noqa: E402
from tfdebug.adapters.hf.vlm import PROMPT  # noqa: E402
from tfdebug.cli import main  # noqa: E402
from tfdebug.io.snapshot import open_snapshot  # noqa: E402

CAPTIONS = ["a house", "a tree"]
ATTENTION = ("q", "k", "v", "q_split", "k_split", "v_split", "scores", "scaled", "probs", "context", "merged", "out")
KINDS = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "q_split": "head_split", "k_split": "head_split",
         "v_split": "head_split", "scores": "scores", "scaled": "scale", "masked": "mask", "probs": "softmax",
         "context": "attn_v", "merged": "head_merge", "out": "out_proj", "q_rotary": "rotary", "k_rotary": "rotary",
         "k_repeat": "kv_repeat", "v_repeat": "kv_repeat"}


@dataclass(frozen=True)
class Family:
    """How one family is captured and what its own outputs are called: `towers` maps a field of the model's
    output (dotted) to the attention block its layers' probabilities are in; `stages` are the stages outside
    attention the mission names, with their kinds; `extra` what each kind of block ('dec.self_attn') shows beyond
    ATTENTION: its mask where the model masks, its rotary positions."""

    name: str
    args: tuple[str, ...]
    towers: dict[str, str]
    stages: dict[str, str]
    extra: dict[str, tuple[str, ...]]


VISION = {"img.patch_embed": "embedding", "img.cls": "embedding", "img.pos": "positional_add"}
TEXT = {"tok.embed": "embedding", "tok.pos": "positional_add"}
FAMILIES = [
    Family("tiny-vit", ("--image", "{image}"), {"attentions": "enc.{i}.attn"}, VISION, {}),
    Family("dinov2", ("--image", "{image}"), {"attentions": "enc.{i}.attn"}, VISION, {}),
    Family("deit", ("--image", "{image}"), {"attentions": "enc.{i}.attn"}, VISION, {}),
    Family("tiny-clip", ("--image", "{image}", "--input", "text=" + " | ".join(CAPTIONS)),
           {"vision_model_output.attentions": "enc.{i}.attn", "text_model_output.attentions": "txt.{i}.self_attn"},
           {**VISION, **TEXT, "logits": "logits"}, {"txt.self_attn": ("masked",)}),
    Family("tiny-siglip", ("--image", "{image}", "--input", "text=" + " | ".join(CAPTIONS)),
           {"vision_model_output.attentions": "enc.{i}.attn", "text_model_output.attentions": "txt.{i}.self_attn"},
           {"img.patch_embed": "embedding", "img.pos": "positional_add", **TEXT, "logits": "logits"}, {}),
    Family("tiny-whisper", ("--audio", "{audio}"),
           {"encoder_attentions": "enc.{i}.attn", "decoder_attentions": "dec.{i}.self_attn",
            "cross_attentions": "dec.{i}.cross_attn"},
           {"src.mel": "embedding", "src.pos": "positional_add", "tgt.embed": "embedding", "tgt.pos": "positional_add",
            "logits": "logits"}, {"dec.self_attn": ("masked",)}),
    Family("tiny-llava", ("--image", "{image}", "--input", "prompt=" + PROMPT),
           {"image_outputs.attentions": "enc.{i}.attn", "attentions": "dec.{i}.self_attn"},
           {**VISION, "img.proj": "embedding", "tok.embed": "embedding", "tok.merged": "embedding",
            "logits": "logits"}, {"dec.self_attn": ("masked", "q_rotary", "k_rotary", "k_repeat", "v_repeat")}),
]


def _folder(name: str, tmp_path: Path) -> tuple[str, Path]:
    """(--model, the folder transformers loads itself): a bundled model, or a tiny one saved as a folder."""
    if name.startswith("tiny-"):
        return name, bundled_folder(name)
    model, processor = {"dinov2": dinov2, "deit": deit}[name]()
    folder = tmp_path / name
    model.save_pretrained(folder, safe_serialization=True)
    processor.save_pretrained(folder)
    return f"hf:{folder}", folder


def _samples(path: Path) -> tuple[np.ndarray, int]:
    """The WAV file's samples (16-bit mono) in −1…1 and its rate, read by Python's wave module."""
    with wave.open(str(path)) as wav:
        assert wav.getsampwidth() == 2 and wav.getnchannels() == 1
        raw, rate = wav.readframes(wav.getnframes()), wav.getframerate()
    return np.frombuffer(raw, dtype=np.int16).astype(np.float32) / 32767, rate


def _own_outputs(name: str, folder: Path):
    """The model's own eager outputs with its attentions, on what its own processor makes of the inputs."""
    config = transformers.AutoConfig.from_pretrained(str(folder))
    model_class = getattr(transformers, config.architectures[0])
    model = model_class.from_pretrained(str(folder), attn_implementation="eager").eval()
    picture = Image.open(sample_image()).convert("RGB")
    if name == "tiny-whisper":
        extractor = transformers.AutoFeatureExtractor.from_pretrained(str(folder))
        samples, rate = _samples(sample_audio())
        assert rate == extractor.sampling_rate
        inputs = extractor(samples, sampling_rate=rate, return_tensors="pt")
        inputs["decoder_input_ids"] = torch.tensor([[config.decoder_start_token_id]])
    elif name == "tiny-llava":
        inputs = transformers.AutoProcessor.from_pretrained(str(folder))(images=picture, text=PROMPT,
                                                                         return_tensors="pt")
    elif name in ("tiny-clip", "tiny-siglip"):
        padding = {"padding": True} if name == "tiny-clip" else {"padding": "max_length"}
        inputs = transformers.AutoProcessor.from_pretrained(str(folder))(images=picture, text=CAPTIONS,
                                                                         return_tensors="pt", **padding)
    else:
        inputs = transformers.AutoImageProcessor.from_pretrained(str(folder))(images=picture, return_tensors="pt")
    with torch.no_grad():
        return model(**inputs, output_attentions=True)


def _field(output, dotted: str):
    for part in dotted.split("."):
        output = getattr(output, part)
    return output


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_captured_by_the_cli_every_probs_stage_is_the_models_own_attention(family, tmp_path):
    model, folder = _folder(family.name, tmp_path)
    out = tmp_path / "pass.safetensors"
    args = [a.format(image=sample_image(), audio=sample_audio()) for a in family.args]
    assert main(["capture", "--model", model, *args, "--out", str(out), "--quiet"]) == 0
    with open_snapshot(out) as recording:
        infos = {n: recording[n].info for n in recording.names()}
        probs = {n: recording.tensor(recording[n]) for n in infos if n.endswith(".probs")}
    own = _own_outputs(family.name, folder)
    expected = {}
    for field, block in family.towers.items():
        attentions = _field(own, field)
        assert attentions is not None and len(attentions) >= 1, field
        expected.update({block.format(i=i) + ".probs": a for i, a in enumerate(attentions)})
    assert sorted(probs) == sorted(expected)  # every probs stage, and one per layer the model returns
    for stage, attention in expected.items():
        assert probs[stage].dtype == torch.float32 and probs[stage].shape == attention.shape, stage
        assert float((probs[stage] - attention).abs().max()) <= 1e-5, stage
    for stage, kind in family.stages.items():
        assert infos[stage].kind == kind, stage
    for stage in expected:
        block = stage.removesuffix(".probs")
        stack, _, kind = block.split(".")
        extra = family.extra.get(f"{stack}.{kind}", ())
        for sub in ATTENTION + extra:
            assert f"{block}.{sub}" in infos, (block, sub)
            assert infos[f"{block}.{sub}"].kind == KINDS[sub], (block, sub)
        # a mask stage exactly where the model masks (causal text and decoders; no picture or audio frame is masked)
        assert (f"{block}.masked" in infos) == ("masked" in extra), block
