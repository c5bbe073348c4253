"""Hugging Face Vision Transformers (ViT, DeiT, DINOv2) as adapters: an image file in, every stage tapped.

The input is one field, `image`, holding the path of a PNG or JPEG file, or of a folder of them (one
batch, in the order of their names; the CLI's `--image FILE`, the window's Image field). It is read bounded, decoded by Pillow, and prepared by the model's own
`AutoImageProcessor` (resize, crop, rescale, normalise as the model was trained). The stages are
`img.patch_embed`, `img.cls`, `img.pos` (`vision_plan`) and then the encoder's layers as for a
text encoder; the token axes are labelled `[CLS]` and each patch's `(row, col)`. Each run is
verified like a text model's: the input against a second processor loaded apart, every layer's
probabilities and input against the unmodified model's `output_attentions`/`output_hidden_states`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch
from torch import Tensor, nn

from tfdebug.adapters.base import InputField, Prepared
from tfdebug.adapters.hf.adapter import HFAdapter
from tfdebug.adapters.hf.folder import MAX_CONFIG_BYTES, check_folder, inside
from tfdebug.adapters.hf.load import bundled_folder, execution_device, quiet_transformers, require_transformers
from tfdebug.adapters.hf.pictures import read_images
from tfdebug.adapters.hf.vision_plan import STREAM_NAME, vision_tap_plan
from tfdebug.core.devices import resolve_dtype
from tfdebug.core.errors import InputError, ModelLoadError
from tfdebug.core.files import read_json
from tfdebug.core.foreign import foreign_call
from tfdebug.core.images import InputImage
from tfdebug.core.phrases import Phrase

#: model types whose image tower tfdebug plans (a folder of another type with only an image processor is tried)
VISION_TYPES = frozenset({"vit", "deit", "dinov2", "dinov2_with_registers", "clip", "siglip"})
PROCESSOR_FILE = "preprocessor_config.json"
SAMPLE_IMAGE = "samples/shapes.png"


def is_vision_folder(config: Mapping) -> bool:
    """Whether a model folder's config is an image model tfdebug opens with `VisionAdapter`."""
    return config.get("model_type") in VISION_TYPES


def sample_image() -> Path:
    """The picture the project draws for its presets (resources/samples/shapes.png)."""
    from importlib.resources import files

    return Path(str(files("tfdebug.resources"))) / SAMPLE_IMAGE


def seen_pixels(pixel_values: Tensor, processor: Any) -> np.ndarray:
    """The processor's output back in 0…255 (N, H, W, 3): what the model saw, aligned with its patches."""
    x = pixel_values.detach().float().cpu()  # (N, 3, H, W)
    if getattr(processor, "do_normalize", False):
        mean = torch.tensor(processor.image_mean, dtype=torch.float32).reshape(1, -1, 1, 1)
        std = torch.tensor(processor.image_std, dtype=torch.float32).reshape(1, -1, 1, 1)
        x = x * std + mean
    scale = getattr(processor, "rescale_factor", 1 / 255) if getattr(processor, "do_rescale", False) else 1.0
    return (x / scale).round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).numpy()


class VisionAdapter(HFAdapter):
    """A Hugging Face Vision Transformer with every stage tapped; its input an image file."""

    kind = "hf-vision"
    inputs = (InputField("image", "Image", "a PNG or JPEG file, or a folder of them", kind="image"),)

    def __init__(self, model: nn.Module, processor: Any, name: str = "hf", folder: Path | None = None):
        require_transformers()
        self.model, self.processor, self.folder, self.name = model.eval(), processor, folder, name
        self.tokenizer = None
        config = self._tower_config()
        self.dtype = next(model.parameters()).dtype
        self.device = execution_device(self._patch_module())  # a device_map may offload its weights
        side = config.image_size if isinstance(config.image_size, int) else config.image_size[0]
        probe = torch.randn(1, config.num_channels, side, side, generator=torch.Generator().manual_seed(0))
        self.plan, self.prefix = self._make_plan(probe.to(self.device, self.dtype))
        from tfdebug.adapters.hf.adapter import TappedModel

        self.module = TappedModel(model, self.plan.taps)
        self.encoder_decoder = False
        self.layer_titles, self.stack_titles = {"enc": "Layer"}, {"enc": "Encoder"}
        self.site_titles = {"img": "Image embeddings", "enc": "Final norm", "head": "Classifier"}
        sample = sample_image()
        self.presets = ({"image": str(sample)},) if sample.is_file() else ()
        self.generation_presets = ()

    def _patch_module(self) -> nn.Module:
        """The module that embeds the patches (where the pixels go)."""
        return self.model.get_input_embeddings()

    def _tower_config(self):
        """The config that says the image's size, channels and patch size."""
        return self.model.config

    def _make_plan(self, pixel_values: Tensor):
        """(TapPlan, labels of the tokens before the patches), from one probing run on `pixel_values`."""
        return vision_tap_plan(self.model, pixel_values)

    def config(self) -> dict:
        return {**super().config(), "image_input": True}

    def vocabulary(self) -> list[str] | None:
        """The classifier's class names (config.id2label), in id order; None for a model without a classifier."""
        labels = getattr(self.model.config, "id2label", None) or {}
        return [str(labels[i]) for i in range(len(labels))] if "logits" in self.plan.taps else None

    def can_chat(self) -> bool:
        return False

    def step_decoder(self, prepared: Prepared, use_cache: bool = True):
        raise InputError("{name} is an image encoder: it has no decoder to generate text with.",
                         id="image.no_decoder", name=self.name)

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        """The image file read and prepared by the model's own processor: `processor(images=…, return_tensors="pt")`."""
        return self.prepare_image(self.check_texts(texts))

    def prepare_image(self, texts: dict[str, str]) -> Prepared:
        """`prepare` of texts already checked: the picture their `image` names, prepared."""
        path = Path(texts["image"].strip()).expanduser()
        images = read_images(path)
        image = images[0]
        with quiet_transformers(), foreign_call(InputError, "The image processor of {name} cannot prepare {path}: "
                                                "{reason}", id="image.processor_failed", name=self.name,
                                                path=str(path)):
            pixels = self.processor(images=images, return_tensors="pt")["pixel_values"]
        pixel_values = pixels.to(self.device, self.dtype)
        patch = self._tower_config().patch_size
        patch = patch if isinstance(patch, int) else patch[0]
        grid = (pixels.shape[-2] // patch, pixels.shape[-1] // patch)
        seen = InputImage(seen_pixels(pixels, self.processor), grid, self.prefix, STREAM_NAME)
        notes = []
        if len(images) > 1:
            notes.append(Phrase("The folder's {n} pictures are one batch, in the order of their names.",
                                id="image.folder_batch", n=len(images)))
        if image.size != (pixels.shape[-1], pixels.shape[-2]):
            notes.append(Phrase("The image is {w} × {h} pixels; the model's processor made it {mw} × {mh}, "
                                "{rows} × {cols} patches of {p} pixels.", id="image.resized", w=image.width,
                                h=image.height, mw=pixels.shape[-1], mh=pixels.shape[-2], rows=grid[0],
                                cols=grid[1], p=patch))
        return Prepared(texts=texts, kwargs={"pixel_values": pixel_values}, tokens={STREAM_NAME: seen.token_labels()},
                        notes=notes, options={"image": str(path)}, image=seen)

    def prepare_batch(self, rows: Sequence[Mapping[str, str]]) -> Prepared:
        if len(rows) == 1:
            return self.prepare(rows[0])
        raise InputError("{name} takes one picture, or one folder of pictures as a batch, at a time.",
                         id="image.no_batch", name=self.name)

    def input_problem(self, prepared: Prepared) -> tuple[str, str]:
        """("" or the sentence saying how the input differs, what it was checked against): the pixels against
        a second `AutoImageProcessor` of the folder on the file read again (nothing to check without a folder)."""
        if self.folder is None or "image" not in prepared.options:
            return "", ""
        against = "AutoImageProcessor"
        with quiet_transformers():
            again = folder_processor(self.folder)(images=read_images(Path(prepared.options["image"])),
                                                  return_tensors="pt")["pixel_values"]
        given = prepared.kwargs["pixel_values"].detach().cpu()
        if given.shape != again.shape or not torch.equal(given, again.to(given.dtype)):
            return Phrase("The model was given other pixels than {what} makes from {path}.",
                          id="image.input_differs", what=against, path=prepared.options["image"]), against
        return "", against

    def describe(self) -> str:
        return f"{self.name} ({self.model.config.model_type}, image) on {self.device} " \
               f"({str(self.dtype).removeprefix('torch.')})"


def folder_processor(folder: Path):
    """`AutoImageProcessor.from_pretrained(folder)` (local files only), its config read bounded first."""
    from transformers import AutoImageProcessor

    read_json(inside(folder, PROCESSOR_FILE), MAX_CONFIG_BYTES, ModelLoadError)
    with quiet_transformers(), foreign_call(ModelLoadError, "transformers cannot read the image processor in "
                                            "{folder}: {reason}", id="hf.auto_image_processor", folder=str(folder)):
        return AutoImageProcessor.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)


def load_vision_folder(folder: Path, device: torch.device, dtype: torch.dtype, device_map: str | None = None,
                       read_processor=None):
    """(model, image processor) from a checked folder, as `load_folder` loads a text model; `read_processor`
    reads the folder's processor (default `folder_processor`, its image processor)."""
    require_transformers()
    import transformers
    from transformers.activations import ACT2FN

    from tfdebug.adapters.hf.load import _check_size, _config_object, _model_class

    config_dict, weights = check_folder(folder, frozenset(ACT2FN))
    processor = (read_processor or folder_processor)(folder)
    config = _config_object(config_dict, folder)
    model_class = _model_class(config) if getattr(config, "architectures", None) else transformers.AutoModel
    _check_size(model_class, config, weights, folder)
    with quiet_transformers(), foreign_call(ModelLoadError, "Could not load the weights in {folder}: {reason}",
                                            id="hf.weights_failed", folder=str(folder)):
        model = model_class.from_pretrained(str(folder), config=config, local_files_only=True, use_safetensors=True,
                                            dtype=dtype, **({"device_map": device_map} if device_map else {}))
    return (model if device_map else model.to(device)).eval(), processor


def load_bundled_vision(spec: str, device, dtype, device_map: str | None = None, download: bool = False):
    """The registry's loader for a bundled tiny image model (`tiny-vit`)."""
    folder = bundled_folder(spec)
    model, processor = load_vision_folder(folder, device, resolve_dtype(dtype), device_map)
    return VisionAdapter(model, processor, name=spec, folder=folder)


def wrap_vision(model: nn.Module, processor: Any, name: str = "hf") -> VisionAdapter:
    """An adapter for a Vision Transformer and its image processor already in memory."""
    return VisionAdapter(model, processor, name)
