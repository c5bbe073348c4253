"""Vision Transformers (ViT, DeiT, DINOv2): a picture prepared by the model's own image processor, stages
img.patch_embed → img.cls → img.pos → the encoder, checked against the unmodified model's own outputs."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")
pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

from tfdebug.adapters.hf.vision import VisionAdapter, sample_image, wrap_vision  # noqa: E402
from tfdebug.core.errors import InputError, TfdebugError  # noqa: E402
from tfdebug.core.recorder import Recorder  # noqa: E402


def _seeded(build):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return build().eval()


def vit():
    config = transformers.ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                    intermediate_size=64, image_size=32, patch_size=8, num_labels=3,
                                    initializer_range=0.5)
    return _seeded(lambda: transformers.ViTForImageClassification(config)), \
        transformers.ViTImageProcessor(size={"height": 32, "width": 32})


def dinov2():
    config = transformers.Dinov2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2,
                                       image_size=28, patch_size=7, initializer_range=0.5)
    processor = transformers.BitImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 28, "width": 28},
                                               image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225])
    return _seeded(lambda: transformers.Dinov2Model(config)), processor


def dinov2_registers():
    config = transformers.Dinov2WithRegistersConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                    mlp_ratio=2, image_size=28, patch_size=7, num_register_tokens=2)
    processor = transformers.BitImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 28, "width": 28})
    return _seeded(lambda: transformers.Dinov2WithRegistersModel(config)), processor


def deit():
    config = transformers.DeiTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, image_size=32, patch_size=8, num_labels=3)
    return _seeded(lambda: transformers.DeiTForImageClassificationWithTeacher(config)), \
        transformers.BitImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})


def capture(adapter: VisionAdapter, path):
    prepared = adapter.prepare({"image": str(path)})
    with torch.no_grad(), Recorder(adapter.module) as rec:
        output = adapter.forward(prepared)
    return prepared, {c.name: c for c in rec.captures}, output


@pytest.mark.parametrize("build,prefix,grid", [(vit, ["[CLS]"], (4, 4)), (dinov2, ["[CLS]"], (4, 4)),
                                               (deit, ["[CLS]", "[DIST]"], (4, 4)),
                                               (dinov2_registers, ["[CLS]", "[REG0]", "[REG1]"], (4, 4))])
def test_every_probs_stage_equals_the_models_own_attentions(build, prefix, grid):
    model, processor = build()
    adapter = wrap_vision(model, processor)
    prepared, stages, output = capture(adapter, sample_image())
    # The pixels are what the processor itself makes of the file (not a copy of tfdebug's own reading).
    expected_pixels = processor(images=Image.open(sample_image()).convert("RGB"), return_tensors="pt")["pixel_values"]
    assert torch.equal(prepared.kwargs["pixel_values"], expected_pixels)
    labels = prepared.tokens["image"]
    assert labels[:len(prefix)] == prefix and labels[len(prefix)] == "(0,0)" and labels[-1] == "(3,3)"
    assert prepared.image.grid == grid and prepared.image.prefix == tuple(prefix)
    names = list(stages)
    assert names[:3] == ["img.patch_embed", "img.cls", "img.pos"]
    assert stages["img.pos"].info.kind == "positional_add"
    for stage in ("q", "k", "v", "q_split", "scores", "scaled", "probs", "context", "merged", "out"):
        assert f"enc.1.attn.{stage}" in stages
    assert stages["enc.0.attn.probs"].info.tokens == {"query": "image", "key": "image"}
    with torch.no_grad():  # the unmodified model in eager attention, with its own outputs
        model.config._attn_implementation = "eager"
        reference = model(pixel_values=prepared.kwargs["pixel_values"], output_attentions=True,
                          output_hidden_states=True)
    for layer, attention in enumerate(reference.attentions):
        probs = stages[f"enc.{layer}.attn.probs"].tensor
        assert probs.shape == attention.shape
        assert float((probs - attention).abs().max()) <= 1e-5
    # hidden_states[0] is the embeddings' output: the patches, the learned tokens, the positions added.
    assert float((stages["img.pos"].tensor - reference.hidden_states[0]).abs().max()) <= 1e-5
    patches = stages["img.patch_embed"].tensor
    assert patches.shape[1] == grid[0] * grid[1]
    assert torch.equal(stages["img.cls"].tensor[:, len(prefix):], patches)
    assert torch.equal(stages["img.cls"].tensor[:, :1], model.base_model.embeddings.cls_token.detach())
    verification = adapter.verify(prepared, output)
    assert verification.ok and verification.max_abs_diff == 0.0
    assert {f"enc.{i}.attn.probs" for i in range(2)} <= set(verification.checked)


def test_an_edited_cls_stage_reaches_the_model():
    model, processor = vit()
    adapter = wrap_vision(model, processor)
    prepared = adapter.prepare({"image": str(sample_image())})
    with torch.no_grad(), Recorder(adapter.module) as rec:
        adapter.forward(prepared)
    before = {c.name: c.tensor.clone() for c in rec.captures}
    bumped = before["img.cls"].clone()
    bumped[:, 0] += 1.0

    def edit(capture):  # what a user's edit of the stage does: the replacement flows downstream
        return bumped if capture.name == "img.cls" else None

    with torch.no_grad(), Recorder(adapter.module, on_capture=edit) as rec:
        adapter.forward(prepared)
    kept = {c.name: c.tensor for c in rec.captures}
    # The positions are added to the replaced rows: img.pos moves by exactly the edit, on [CLS] only.
    delta = kept["img.pos"] - before["img.pos"]
    assert torch.allclose(delta[:, 0], torch.ones_like(delta[:, 0]), atol=1e-5)
    assert float(delta[:, 1:].abs().max()) == 0.0


def test_an_unreadable_or_missing_image_is_one_sentence(tmp_path):
    adapter = wrap_vision(*vit())
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    with pytest.raises(InputError, match="is not a picture tfdebug reads"):
        adapter.prepare({"image": str(text)})
    with pytest.raises(TfdebugError):
        adapter.prepare({"image": str(tmp_path / "absent.png")})
    with pytest.raises(InputError, match="is empty"):
        adapter.prepare({"image": "  "})


def test_the_bundled_tiny_vit_is_captured_by_the_cli_and_replays_its_picture(tmp_path):
    from tfdebug.io.snapshot import open_snapshot as load_snapshot

    out = tmp_path / "vit.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", "tiny-vit", "--image",
                           str(sample_image()), "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "verified: max |Δ| = 0.0e+00" in done.stdout and "input equal to AutoImageProcessor's" in done.stdout
    recording = load_snapshot(str(out))
    try:
        image = recording.image
        assert image is not None and image.grid == (8, 8) and image.pixels.shape == (1, 64, 64, 3)
        assert recording.tokens["image"][0] == "[CLS]" and len(recording.tokens["image"]) == 65
        # The picture carried is the processor's 64 × 64 resize of the sample, back in 0…255.
        processor = transformers.AutoImageProcessor.from_pretrained(
            str(sample_image().parents[1] / "tiny-vit"), local_files_only=True)
        pixels = processor(images=Image.open(sample_image()).convert("RGB"), return_tensors="pt")["pixel_values"]
        expected = ((pixels * 0.5 + 0.5) * 255).round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).numpy()
        assert np.array_equal(image.pixels, expected)
    finally:
        recording.close()


def test_a_snapshot_whose_image_does_not_match_its_tokens_is_refused(tmp_path):
    from safetensors import safe_open
    from safetensors.torch import save_file

    from tfdebug.core.errors import SnapshotError
    from tfdebug.io.snapshot import open_snapshot as load_snapshot

    out = tmp_path / "vit.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", "tiny-vit", "--image",
                           str(sample_image()), "--out", str(out), "--stages", "img.*", "--quiet"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with safe_open(str(out), "pt") as f:
        manifest = json.loads(f.metadata()["tfdebug"])
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    manifest["image"]["grid"] = [4, 4]
    bad = tmp_path / "bad.safetensors"
    save_file(tensors, str(bad), metadata={"tfdebug": json.dumps(manifest)})
    with pytest.raises(SnapshotError, match="does not match the tokens of stream 'image'"):
        load_snapshot(str(bad))
    manifest["image"]["rgb"] = "!!"
    save_file(tensors, str(bad), metadata={"tfdebug": json.dumps(manifest)})
    with pytest.raises(SnapshotError, match="the image it carries is damaged"):
        load_snapshot(str(bad))


def test_a_folder_of_pictures_is_one_batch_in_the_order_of_their_names(tmp_path):
    model, processor = vit()
    adapter = wrap_vision(model, processor)
    sample = Image.open(sample_image()).convert("RGB")
    sample.transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(tmp_path / "b-mirrored.png")
    sample.save(tmp_path / "a-sample.jpg", quality=95)
    (tmp_path / "notes.txt").write_text("not a picture")  # other files are left out
    prepared, stages, output = capture(adapter, tmp_path)
    files = [Image.open(tmp_path / name).convert("RGB") for name in ("a-sample.jpg", "b-mirrored.png")]
    assert torch.equal(prepared.kwargs["pixel_values"], processor(images=files, return_tensors="pt")["pixel_values"])
    assert prepared.image.pixels.shape == (2, 32, 32, 3)
    assert stages["enc.1.attn.probs"].tensor.shape[0] == 2
    with torch.no_grad():
        model.config._attn_implementation = "eager"
        reference = model(pixel_values=prepared.kwargs["pixel_values"], output_attentions=True)
    assert float((stages["enc.1.attn.probs"].tensor - reference.attentions[1]).abs().max()) <= 1e-5
    assert adapter.verify(prepared, output).ok
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="holds no picture"):
        adapter.prepare({"image": str(empty)})


def test_a_dinov2_folder_is_captured_by_the_cli_as_hf_folder(tmp_path):
    model, processor = dinov2()
    folder = tmp_path / "dinov2"
    model.save_pretrained(folder, safe_serialization=True)
    processor.save_pretrained(folder)
    out = tmp_path / "dinov2.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", f"hf:{folder}", "--image",
                           str(sample_image()), "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "verified: max |Δ| = 0.0e+00" in done.stdout and "input equal to AutoImageProcessor's" in done.stdout
    from tfdebug.io.snapshot import open_snapshot

    recording = open_snapshot(str(out))
    try:
        assert recording.names()[:3] == ["img.patch_embed", "img.cls", "img.pos"]
        assert recording.adapter == "hf-vision" and recording.image.grid == (4, 4)
    finally:
        recording.close()
