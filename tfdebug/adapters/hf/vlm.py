"""LLaVA (a vision-language model) as an adapter: a picture and a prompt in, the vision tower, the projector
and the language model tapped as one pass (`--image FILE` with `--input prompt=…`).

The vision tower is planned as a Vision Transformer (`vision_plan`: `img.patch_embed`, `img.cls`,
`img.pos`, `img.norm`, then `enc.{i}.attn.*`); `img.select` is what the projector reads (the
hidden state of layer `vision_feature_layer`, [CLS] dropped under the 'default' strategy) and
`img.proj` its output, one row per patch in the language model's width. The language model is
planned as a decoder-only model: `tok.embed` (every prompt token's embedding, the `<image>`
placeholders too), `tok.merged` (the placeholders' rows replaced by `img.proj`'s, the first layer's
input), `dec.{i}.self_attn.*`, `dec.norm`, `logits`. The prompt is prepared with the picture by the
model's own processor (`LlavaProcessor`: one `<image>` becomes one token per patch); those tokens are
labelled by their patch, `(row, col)`, so a text token's attention over them is its attention over
the picture (the Image dock draws it). Generate runs it token by token as a language model, the picture read
at step 0, so a generated token's row over the patch tokens is where in the picture it looks. Verified like a
text model: the input against a second
processor loaded apart, every layer's probabilities and inputs (both towers) and the projected
features against the unmodified model's `image_outputs`, `attentions` and `hidden_states`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import torch
from torch import Tensor, nn

from tfdebug.adapters.base import InputField, Prepared
from tfdebug.adapters.hf.adapter import HFAdapter
from tfdebug.adapters.hf.builder import STREAM
from tfdebug.adapters.hf.layers import LayerPlanner
from tfdebug.adapters.hf.load import quiet_transformers
from tfdebug.adapters.hf.match import close
from tfdebug.adapters.hf.match import refuse as _refuse
from tfdebug.adapters.hf.names import Planner
from tfdebug.adapters.hf.pictures import read_images
from tfdebug.adapters.hf.probe import Call, probe
from tfdebug.adapters.hf.vision import VisionAdapter, sample_image, seen_pixels
from tfdebug.adapters.hf.vision_plan import VisionPlanner
from tfdebug.core.errors import InputError, ModelLoadError
from tfdebug.core.foreign import foreign_call
from tfdebug.core.images import InputImage
from tfdebug.core.model_lock import forward_lock
from tfdebug.core.phrases import Phrase

VLM_TYPES = frozenset({"llava"})
PROMPT = "USER: <image> what is in the picture? ASSISTANT:"
VISION, LANGUAGE = "model.vision_tower", "model.language_model"


class VLMPlanner(VisionPlanner):
    """The vision tower as a Vision Transformer, the projector, then the language model as a decoder."""

    def _is_embedding(self, module: nn.Module) -> bool:
        return module is self.model.get_input_embeddings()

    def _patch_call(self, container: Call, first_layer: Call) -> Call:
        return next(c for c in self.record.calls[container.index: first_layer.index]
                    if isinstance(c.module, nn.Conv2d))

    def _layers(self, tower: str) -> tuple[Call, list[Call]]:
        list_path = f"{tower}.encoder.layers" if tower == VISION else f"{tower}.layers"
        layers = [c for c in self.record.calls if c.attention is None and c.path.startswith(list_path + ".")
                  and c.path[len(list_path) + 1:].isdigit()]
        container = self.record.first(tower)
        if not layers or container is None:
            raise _refuse("cannot find the layers of {model}'s {tower}.", "no_tower", model=type(self.model).__name__,
                          tower=tower)
        return container, layers

    def plan(self):
        b, config = self.b, self.model.config
        container, layers = self._layers(VISION)
        previous = self.embeddings("enc", container, layers[0], None)
        planner, inputs = LayerPlanner(self, "enc", None, None), []
        for layer in layers:
            inputs.append(previous)
            previous = planner.layer(layer, previous)
        inputs.append(previous)  # hidden_states[-1]: the last layer's output
        b.plan.layer_inputs["image_outputs.hidden_states"] = inputs[:-1]
        for role, names in planner.probs.items():
            b.plan.probs[f"image_outputs.{role}"] = names
        projector = self.record.first("model.multi_modal_projector")
        if projector is None or config.vision_feature_select_strategy not in ("default", "full") \
                or not isinstance(config.vision_feature_layer, int):
            raise _refuse("cannot find how {model} projects the picture's patches.", "no_projector",
                          model=type(self.model).__name__)
        layer = config.vision_feature_layer
        source = inputs[layer]
        drop = 1 if config.vision_feature_select_strategy == "default" else 0
        total = layers[0].input.shape[1]  # the vision tower's tokens: [CLS] and the patches
        patches = f"image[{drop}:{total}]" if drop else "image"
        b.input(projector.path, "img.select", "embedding", STREAM, f"hidden_states[{layer}][:, {drop}:]  (the "
                f"layer the projector reads{', [CLS] dropped' if drop else ''})", {"token": patches},
                inputs=(source,))
        b.output(projector.path, "img.proj", "embedding", STREAM, "W₂·act(W₁·x + b₁) + b₂  (each patch in the "
                 "language model's width)", {"token": patches}, inputs=("img.select",))
        b.plan.layer_inputs["image_outputs.pooler_output"] = ["img.proj"]
        self.streams = ("prompt",)
        container, layers = self._layers(LANGUAGE)
        embed = next((c for c in self.record.calls if self._is_embedding(c.module)), None)
        if embed is None or close(layers[0].input, embed.out):
            raise _refuse("cannot find where {model} puts the picture's rows among the prompt's.", "no_merge",
                          model=type(self.model).__name__)
        t = {"token": "prompt"}
        b.output(embed.path, "tok.embed", "embedding", STREAM, "E[token]  (the <image> placeholders too)", t)
        b.input(layers[0].path, "tok.merged", "embedding", STREAM, "E[token], each <image> row replaced by "
                "img.proj's next row", t, inputs=("tok.embed", "img.proj"))
        previous, planner, inputs = "tok.merged", LayerPlanner(self, "dec", None, None), []
        for layer in layers:
            inputs.append(previous)
            previous = planner.layer(layer, previous)
        b.plan.layer_inputs["hidden_states"] = inputs
        for role, names in planner.probs.items():
            b.plan.probs[role] = names
        Planner.head(self, self.final_norm("dec", container, layers[-1], previous, None))  # the LM's, not a classifier
        self.streams = ("image", "prompt")
        b.plan.streams = self.streams
        return b.plan


class LlavaAdapter(VisionAdapter):
    """A LLaVA model: a picture and a prompt in, its vision tower, projector and language model tapped."""

    kind = "hf-vlm"
    inputs = (InputField("image", "Image", "a PNG or JPEG file", kind="image"),
              InputField("prompt", "Prompt", "text with <image> where the picture goes"))

    def __init__(self, model: nn.Module, processor: Any, name: str = "hf", folder: Path | None = None):
        self.vlm_processor = processor
        super().__init__(model, processor.image_processor, name, folder)
        self.tokenizer = processor.tokenizer
        self.layer_titles = {"enc": "Image layer", "dec": "Block"}
        self.stack_titles = {"enc": "Image encoder", "dec": "Decoder"}
        self.site_titles = {"img": "Image embeddings", "tok": "Token embedding", "enc": "Image norm",
                            "dec": "Final norm", "head": "lm_head → logits"}
        sample = sample_image()
        self.presets = ({"image": str(sample), "prompt": PROMPT},) if sample.is_file() else ()
        self.generation_presets = self.presets

    def _patch_module(self) -> nn.Module:
        return self.model.model.vision_tower.embeddings.patch_embedding

    def _tower_config(self):
        return self.model.config.vision_config

    def _make_plan(self, pixel_values: Tensor):
        from tfdebug.adapters.hf.load import quiet_transformers

        tokens = self._image_tokens()
        ids = torch.tensor([[self.model.config.image_token_id] * tokens], device=self.device)
        with forward_lock(self.model), quiet_transformers():
            record = probe(self.model, {"pixel_values": pixel_values, "input_ids": ids})
        planner = VLMPlanner(self.model, record)
        return planner.plan(), getattr(planner, "prefix", ())

    def _image_tokens(self) -> int:
        """How many prompt tokens one picture becomes (one per patch, [CLS] too under the 'full' strategy)."""
        config = self.model.config.vision_config
        side = (config.image_size if isinstance(config.image_size, int) else config.image_size[0]) // \
            config.patch_size
        return side * side + (self.model.config.vision_feature_select_strategy == "full")

    def vocabulary(self) -> list[str] | None:
        return None

    def step_decoder(self, prepared: Prepared, use_cache: bool = True):
        """Generate after the prompt as a language model does, the picture read with it at step 0 (the vision
        tower and projector run once; every later step feeds one token, its keys and values cached)."""
        return HFAdapter.step_decoder(self, prepared, use_cache)

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        """`processor(images=picture, text=prompt, return_tensors="pt")`, the model's own processor; a prompt
        without `<image>` gets it in front (a note says so)."""
        texts = self.check_texts(texts)
        path = Path(texts["image"].strip()).expanduser()
        images = read_images(path)
        if len(images) != 1:
            raise InputError("{name} takes one picture at a time.", id="vlm.one_image", name=self.name)
        image_token = self.vlm_processor.image_token
        prompt, notes = texts["prompt"], []
        if image_token not in prompt:
            prompt = f"{image_token} {prompt}"
            notes.append(Phrase("The prompt has no {token}; the picture goes before it.", id="vlm.image_first",
                                token=image_token))
        elif prompt.count(image_token) > 1:
            raise InputError("The prompt names {token} {n} times; {name} takes one picture.", id="vlm.images",
                             token=image_token, n=prompt.count(image_token), name=self.name)
        with quiet_transformers(), foreign_call(InputError, "The processor of {name} cannot prepare {path}: "
                                                "{reason}", id="vlm.processor_failed", name=self.name, path=str(path)):
            encoding = self.vlm_processor(images=images, text=prompt, return_tensors="pt")
        ids = encoding["input_ids"]
        pixels = encoding["pixel_values"]
        kwargs = {"pixel_values": pixels.to(self.device, self.dtype), "input_ids": ids.to(self.device)}
        if "attention_mask" in encoding:
            kwargs["attention_mask"] = encoding["attention_mask"].to(self.device)
        config = self.model.config
        placeholders = (ids[0] == config.image_token_id).nonzero().flatten().tolist()
        patch = config.vision_config.patch_size
        grid = (pixels.shape[-2] // patch, pixels.shape[-1] // patch)
        cls = config.vision_feature_select_strategy == "full"
        if len(placeholders) != grid[0] * grid[1] + cls or placeholders != list(range(placeholders[0],
                                                                                        placeholders[-1] + 1)):
            raise InputError("The processor of {name} gives {n} picture tokens; its vision tower makes {m}.",
                             id="vlm.token_count", name=self.name, n=len(placeholders), m=grid[0] * grid[1] + cls)
        words = [str(t) for t in self.tokenizer.convert_ids_to_tokens(ids[0].tolist())]
        first = placeholders[0] + cls
        prefix = tuple(w[:32] for w in words[:first])
        picture = InputImage(seen_pixels(pixels, self.processor), grid, prefix, "prompt")
        labels = picture.token_labels()
        tokens = {"prompt": labels + words[len(labels):],
                  "image": InputImage(picture.pixels, grid, self.prefix, "image").token_labels()}
        return Prepared(texts=texts, kwargs=kwargs, tokens=tokens, notes=notes,
                        options={"image": str(path), "prompt": prompt}, image=picture)

    def input_problem(self, prepared: Prepared) -> tuple[str, str]:
        """The ids, mask and pixels against a second `AutoProcessor` of the folder on the file read again."""
        if self.folder is None:
            return "", ""
        from tfdebug.adapters.hf.inputs import check_inputs

        again = folder_processor(self.folder)(images=read_images(Path(prepared.options["image"])),
                                              text=prepared.options["prompt"], return_tensors="pt")
        problem = check_inputs(prepared.kwargs, again, "AutoProcessor")
        if not problem and not torch.equal(prepared.kwargs["pixel_values"].cpu(), again["pixel_values"]):
            problem = Phrase("The model was given other pixels than {what} makes from {path}.",
                             id="image.input_differs", what="AutoProcessor", path=prepared.options["image"])
        return problem, "AutoProcessor"

    def describe(self) -> str:
        return f"{self.name} ({self.model.config.model_type}, image and text) on {self.device} " \
               f"({str(self.dtype).removeprefix('torch.')})"


def folder_processor(folder: Path):
    """`AutoProcessor.from_pretrained(folder)` (local files only)."""
    from transformers import AutoProcessor

    with quiet_transformers(), foreign_call(ModelLoadError, "transformers cannot read the processor in {folder}: "
                                            "{reason}", id="hf.auto_processor", folder=str(folder)):
        return AutoProcessor.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)


def load_vlm_folder(folder: Path, device, dtype, device_map: str | None = None, name: str = "") -> LlavaAdapter:
    """A LLaVA folder (config, weights, processor) as an adapter."""
    from tfdebug.adapters.hf.vision import load_vision_folder

    model, processor = load_vision_folder(folder, device, dtype, device_map, read_processor=folder_processor)
    return LlavaAdapter(model, processor, name=name or str(folder), folder=folder)


def load_bundled_vlm(spec: str, device, dtype, device_map: str | None = None, download: bool = False):
    """The registry's loader for the bundled tiny LLaVA (`tiny-llava`)."""
    from tfdebug.adapters.hf.load import bundled_folder
    from tfdebug.core.devices import resolve_dtype

    return load_vlm_folder(bundled_folder(spec), device, resolve_dtype(dtype), device_map, name=spec)
