"""CLIP: an image tower and a text tower, and their similarity, as one pass (`--image FILE` with `--input text=…`).

The image tower is planned as a Vision Transformer (`vision_plan`: `img.patch_embed`, `img.cls`,
`img.pos`, `img.norm` for CLIP's pre-layernorm, then `enc.{i}.attn.*`), the text tower as a text
model (`tok.embed`, `tok.pos`, `txt.{i}.self_attn.*` — CLIP's text encoder is causal — and
`txt.norm`); each tower's pooled output is projected into the shared space (`img.proj`: the
[CLS] row after the post-layernorm; `txt.proj`: the end-of-text token's row), and the last stage
is the model's own `logits_per_image`, one row per picture and one column per text: the
scaled cosine similarities (`logits`). The texts are one or more captions separated by `|`,
padded into one batch by the model's tokenizer. Verification compares each tower's
probabilities and layer inputs with `vision_model_output` / `text_model_output` of the
unmodified model, and the similarities with its `logits_per_image`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from torch import Tensor, nn

from tfdebug.adapters.base import InputField, Prepared
from tfdebug.adapters.hf.hooks import ModelLogits
from tfdebug.adapters.hf.inputs import hf_tokenizer
from tfdebug.adapters.hf.layers import LayerPlanner
from tfdebug.adapters.hf.load import folder_tokenizer, quiet_transformers
from tfdebug.adapters.hf.match import refuse as _refuse
from tfdebug.adapters.hf.probe import Call, probe
from tfdebug.adapters.hf.vision import VisionAdapter, sample_image
from tfdebug.adapters.hf.vision_plan import VisionPlanner
from tfdebug.core.errors import InputError
from tfdebug.core.model_lock import forward_lock

TOWERS = (("vision_model", "enc", "image"), ("text_model", "txt", "text"))
CAPTIONS = "a house | a tree | the sun"
TEXT_INPUTS = ("input_ids", "attention_mask")


class TwoTowerPlanner(VisionPlanner):
    """Both towers of a CLIP model, one after the other, then the projections and the similarity."""

    def _is_embedding(self, module: nn.Module) -> bool:
        return module is self.model.text_model.embeddings.token_embedding

    def _patch_call(self, container: Call, first_layer: Call) -> Call:
        patches = self.model.vision_model.embeddings.patch_embedding
        return next(c for c in self.record.calls[container.index: first_layer.index] if c.module is patches)

    def plan(self):
        self.project(self.towers())
        return self.b.plan

    def towers(self) -> dict[str, str]:
        """Both towers' stages, one after the other; {stack: the name of its last stage}."""
        b = self.b
        pooled = {}
        for tower, stack, stream in TOWERS:
            list_path = f"{tower}.encoder.layers"
            layers = [c for c in self.record.calls if c.attention is None and c.path.startswith(list_path + ".")
                      and c.path[len(list_path) + 1:].isdigit()]
            container = self.record.first(tower)
            if not layers or container is None:
                raise _refuse("cannot find the layers of {model}'s {tower}.", "no_tower",
                              model=type(self.model).__name__, tower=tower)
            self.streams = (stream,)
            if stack == "enc":
                previous = self.embeddings(stack, container, layers[0], None)
            else:
                previous = super(VisionPlanner, self).embeddings(stack, container, layers[0], None)
            planner = LayerPlanner(self, stack, None, None)
            inputs = []
            for layer in layers:
                inputs.append(previous)
                previous = planner.layer(layer, previous)
            b.plan.layer_inputs[f"{tower}_output.hidden_states"] = inputs
            for role, names in planner.probs.items():
                b.plan.probs[f"{tower}_output.{role}"] = names
            pooled[stack] = self.final_norm(stack, container, layers[-1], previous, None)
        self.streams = ("image", "text")
        b.plan.streams = self.streams
        return pooled

    def project(self, pooled: dict[str, str]) -> None:
        """CLIP's pooling and projections into the shared space, then the similarity (`logits`)."""
        b = self.b
        post = self.record.first("vision_model.post_layernorm")
        if post is not None:
            b.output(post.path, "img.pool", "layer_norm", ("batch", "model"), "LayerNorm(h[CLS])  (the pooled image)",
                     {}, inputs=(pooled["enc"],))
            pooled["enc"] = "img.pool"
        for path, name, source, what in (("visual_projection", "img.proj", pooled["enc"], "image"),
                                         ("text_projection", "txt.proj", pooled["txt"], "text")):
            b.output(path, name, "embedding", ("batch", "model"), f"h·W_proj  (the {what} in the shared space)", {},
                     inputs=(source,))
        b.tap("logits", "logits", ("image", "text"), "exp(t) · cos(img.proj, txt.proj)  (logits_per_image)", {},
              inputs=("img.proj", "txt.proj"))
        b.plan.hooks.append(ModelLogits("logits", field="logits_per_image"))
        b.plan.logits_key = "logits_per_image"


class CLIPAdapter(VisionAdapter):
    """A CLIP model: a picture and one or more captions in, every stage of both towers tapped."""

    kind = "hf-clip"
    planner_class = TwoTowerPlanner
    inputs = (InputField("image", "Image", "a PNG or JPEG file, or a folder of them", kind="image"),
              InputField("text", "Captions", "one or more captions, separated by |"))

    def __init__(self, model: nn.Module, processor: Any, tokenizer: Any, name: str = "hf",
                 folder: Path | None = None):
        self.tokenizer_in = hf_tokenizer(tokenizer)
        super().__init__(model, processor, name, folder)
        self.tokenizer = self.tokenizer_in
        self.layer_titles = {"enc": "Image layer", "txt": "Text layer"}
        self.stack_titles = {"enc": "Image encoder", "txt": "Text encoder"}
        self.site_titles = {"img": "Image embeddings", "tok": "Text embeddings", "enc": "Image norm",
                            "txt": "Text norm", "head": "Similarity"}
        sample = sample_image()
        self.presets = ({"image": str(sample), "text": CAPTIONS},) if sample.is_file() else ()

    def _patch_module(self) -> nn.Module:
        return self.model.vision_model.embeddings.patch_embedding

    def _tower_config(self):
        return self.model.config.vision_config

    def _make_plan(self, pixel_values: Tensor):
        ids = self.encode(["a photo"])
        inputs = {"pixel_values": pixel_values, **{k: v.to(self.device) for k, v in ids.items()
                                                   if k in TEXT_INPUTS}}
        with forward_lock(self.model), quiet_transformers():
            record = probe(self.model, inputs)
        planner = self.planner_class(self.model, record)
        return planner.plan(), getattr(planner, "prefix", ())

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        """The picture as for a Vision Transformer, the captions (split at '|') as `tokenizer(captions,
        padding=True)` makes them: a batch of texts against one picture."""
        texts = self.check_texts(texts)
        prepared = self.prepare_image(texts)
        captions = [c.strip() for c in texts["text"].split("|") if c.strip()]
        if not captions:
            raise InputError("The {field} is empty: type at least one word.", id="input.empty", field="captions")
        encoding = self.encode(captions)
        limit = self.model.config.text_config.max_position_embeddings
        if encoding["input_ids"].shape[1] > limit:
            from tfdebug.core.errors import SequenceTooLongError

            raise SequenceTooLongError("The input is {n} tokens long; this model takes at most {most}.",
                                       id="hf.too_long", n=encoding["input_ids"].shape[1], most=limit)
        prepared.kwargs.update({k: v.to(self.device) for k, v in encoding.items() if k in TEXT_INPUTS})
        tokenizer = getattr(self.tokenizer_in, "convert_ids_to_tokens")
        prepared.tokens["text"] = [str(t) for t in tokenizer(encoding["input_ids"][0].tolist())]
        prepared.options["captions"] = captions
        return prepared

    def padding(self) -> dict:
        """How the captions are padded into one batch: CLIP pads to the longest."""
        return {"padding": True}

    def encode(self, captions: list[str], tokenizer: Any = None):
        """`tokenizer(captions, **padding(), return_tensors="pt")`, by the adapter's tokenizer unless one is given."""
        with quiet_transformers():
            return (tokenizer or self.tokenizer_in)(captions, **self.padding(), return_tensors="pt")

    def vocabulary(self) -> list[str] | None:
        return None

    def input_problem(self, prepared: Prepared) -> tuple[str, str]:
        """The pixels as for a Vision Transformer, then the captions' ids and mask against the folder's own
        `AutoTokenizer` (a second one, loaded apart) called on the same captions, padded the same way."""
        problem, against = super().input_problem(prepared)
        if problem or self.folder is None:
            return problem, against
        from tfdebug.adapters.hf.inputs import check_inputs

        reference = self.encode(prepared.options["captions"], folder_tokenizer(self.folder))
        return check_inputs(prepared.kwargs, reference, "AutoTokenizer"), f"{against} and AutoTokenizer"


def load_clip_folder(folder: Path, device, dtype, device_map: str | None = None, name: str = "") -> CLIPAdapter:
    """A CLIP or SigLIP folder (config, weights, tokenizer and image processor) as an adapter."""
    from tfdebug.adapters.hf.vision import load_vision_folder

    model, processor = load_vision_folder(folder, device, dtype, device_map)
    adapter = CLIPAdapter
    if model.config.model_type == "siglip":
        from tfdebug.adapters.hf.siglip import SigLIPAdapter as adapter
    return adapter(model, processor, folder_tokenizer(folder), name=name or str(folder), folder=folder)


def load_bundled_clip(spec: str, device, dtype, device_map: str | None = None, download: bool = False):
    """The registry's loader for the bundled tiny CLIP (`tiny-clip`) and SigLIP (`tiny-siglip`)."""
    from tfdebug.adapters.hf.load import bundled_folder
    from tfdebug.core.devices import resolve_dtype

    return load_clip_folder(bundled_folder(spec), device, resolve_dtype(dtype), device_map, name=spec)
