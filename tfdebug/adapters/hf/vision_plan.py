"""Stage names of a Hugging Face Vision Transformer (ViT, DeiT, DINOv2 …): the image's way into the encoder.

The layers are planned as for a text encoder (`hf_names.Planner`, `hf_layers`): the probe shows
them calling transformers' attention interface. What differs is before the first layer, inside
the model's embeddings module, where no module boundary separates the steps:

- `img.patch_embed`: the patch embedding's output, one row per patch (a convolution with stride =
  patch size, flattened in reading order), (B, patches, D);
- `img.cls`: the `[CLS]` token (and any other learned tokens) put before the patches, (B, T, D);
  a model without such tokens (SigLIP's image tower) has no `img.cls`;
- `img.pos`: the position embeddings added, the embeddings module's output, (B, T, D), the first
  layer's input (what `hidden_states[0]` holds).

`VisionEmbeddings` taps all three from hooks on the model's own modules; the model computes
every value. `img.cls` is the one tensor the model never hands from one module to another, so
the hook builds it as the model does (the learned tokens, then the patches) and a replacement of
it reaches the model as the difference it makes (the positions are added to it, a sum).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import torch
from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from tfdebug.adapters.hf.builder import STREAM, TapPlan
from tfdebug.adapters.hf.match import close
from tfdebug.adapters.hf.match import refuse as _refuse
from tfdebug.adapters.hf.names import Planner
from tfdebug.adapters.hf.probe import Call, probe
from tfdebug.core.model_lock import forward_lock
from tfdebug.core.tap import Tap

STREAM_NAME = "image"


def learned_tokens(embeddings: nn.Module) -> list[tuple[str, Tensor]]:
    """The learned tokens an embeddings module puts before the patches, in order: ('[CLS]', (1, 1, D)) …

    ViT and DINOv2 keep `cls_token`, DeiT also `distillation_token`, DINOv2 with registers
    `register_tokens`, CLIP's vision tower `class_embedding` (D,)."""
    found = []
    for attr, label in (("cls_token", "[CLS]"), ("class_embedding", "[CLS]"), ("distillation_token", "[DIST]")):
        value = getattr(embeddings, attr, None)
        if isinstance(value, Tensor):
            found.append((label, value.reshape(1, -1, value.shape[-1])))
    registers = getattr(embeddings, "register_tokens", None)
    if isinstance(registers, Tensor):
        found += [(f"[REG{i}]", registers[:, i: i + 1]) for i in range(registers.shape[1])]
    return found


@dataclass(frozen=True)
class VisionEmbeddings:
    """`patch_embed` from the patch embedding's output, `cls` built as the embeddings module builds it,
    `pos` from the embeddings module's output (plus whatever a replaced `cls` changed)."""

    embeddings: str
    patches: str
    stages: tuple[str, str, str] = ("img.patch_embed", "img.cls", "img.pos")

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        patch_tap, cls_tap, pos_tap = (taps.get(s) for s in self.stages)
        module = model.get_submodule(self.embeddings)
        tokens = learned_tokens(module)

        def patched(mod, args, output):
            x = patch_tap(output if output.dim() == 3 else output.flatten(2).transpose(1, 2))  # (B, P, D)
            if cls_tap is None:  # no learned token: the patches are the embeddings module's rows
                return x if output.dim() == 3 else x.transpose(1, 2).reshape(output.shape)
            # A model may leave some patches out (masked image modelling is not run here), so this is
            # the row order the embeddings module concatenates: the learned tokens, then the patches.
            parts = [t.to(x.dtype).expand(x.shape[0], -1, -1) for _, t in tokens]
            made = torch.cat([*parts, x], dim=1)  # (B, T, D)
            seen = cls_tap(made)
            stash["cls_delta"] = None if seen is made else seen - made
            return x if output.dim() == 3 else x.transpose(1, 2).reshape(output.shape)

        def embedded(mod, args, output):
            out = output[0] if isinstance(output, tuple) else output
            delta = stash.pop("cls_delta", None)
            out = pos_tap(out if delta is None else out + delta)
            return (out, *output[1:]) if isinstance(output, tuple) else out

        return [model.get_submodule(self.patches).register_forward_hook(patched),
                module.register_forward_hook(embedded)]


class VisionPlanner(Planner):
    """The generic planner with an image's embeddings (`embeddings`) instead of token embeddings."""

    def __init__(self, model: nn.Module, record):
        super().__init__(model, record)
        self.streams = (STREAM_NAME,)
        self.b.plan.streams = self.streams

    def _patch_call(self, container: Call, first_layer: Call) -> Call:
        patches = self.model.get_input_embeddings()
        call = next((c for c in self.record.calls[container.index: first_layer.index] if c.module is patches), None)
        if call is None:
            raise _refuse("cannot find where {model} embeds the image's patches.", "no_patch_embedding",
                          model=type(self.model).__name__)
        return call

    def embeddings(self, stack: str, container: Call, first_layer: Call, within: str | None) -> str:
        """`img.patch_embed`, `img.cls`, `img.pos`: from the pixels to the first layer's input."""
        patch = self._patch_call(container, first_layer)
        outer = [c for c in self.record.calls[container.index + 1: patch.index]
                 if c.attention is None and c.end >= patch.end and c.out is not None]
        embeddings = outer[-1] if outer else None
        labels = [label for label, _ in learned_tokens(embeddings.module)] if embeddings is not None else []
        out = patch.out
        patches = out.shape[1] if out is not None and out.dim() == 3 else out.shape[2] * out.shape[3] \
            if out is not None and out.dim() == 4 else -1
        if embeddings is None or embeddings.out.dim() != 3 or embeddings.out.shape[1] != len(labels) + patches:
            raise _refuse("cannot find the module of {model} that puts its class token before the patches.",
                          "no_vision_embeddings", model=type(self.model).__name__)
        after = [c for c in self.record.calls[embeddings.end + 1: first_layer.index] if c.attention is None]
        norm = next((c for c in after if c.input is not None and close(c.input, embeddings.out)), None)
        if not close(first_layer.input, embeddings.out) and norm is None:
            raise _refuse("cannot tell how {model}'s embeddings become the input of {path}.", "embedding_unclear",
                          model=type(self.model).__name__, path=first_layer.path)
        n = len(labels)
        total = embeddings.out.shape[1]
        b = self.b
        b.tap("img.patch_embed", "embedding", STREAM, "Conv2d(image, stride = patch) → one row per patch",
              {"token": f"{STREAM_NAME}[{n}:{total}]"}, patch.path)
        last = "img.patch_embed"
        if labels:
            b.tap("img.cls", "embedding", STREAM, f"[{' + '.join(labels)} ; patches]  (learned tokens before the "
                  "patches)", {"token": STREAM_NAME}, embeddings.path, inputs=(last,))
            last = "img.cls"
        b.tap("img.pos", "positional_add", STREAM, "X + P[pos]  (learned position embeddings)",
              {"token": STREAM_NAME}, embeddings.path, inputs=(last,))
        b.plan.hooks.append(VisionEmbeddings(embeddings.path, patch.path))
        last = "img.pos"
        if norm is not None and not close(first_layer.input, embeddings.out):  # CLIP's pre-layernorm
            from tfdebug.adapters.hf import conventions as conv

            kind, formula = conv.norm_kind(norm.module)
            b.output(norm.path, "img.norm", kind, STREAM, formula, {"token": STREAM_NAME}, within, inputs=(last,))
            last = "img.norm"
        self.prefix = tuple(labels)
        return last


    def head(self, previous: str) -> None:
        """`logits`: an image classifier's scores, one per class (the linear layer whose output the model returns)."""
        returned = getattr(self.record.output, "logits", None)
        call = next((c for c in self.record.calls if c.attention is None and isinstance(c.module, nn.Linear)
                     and c.out is returned), None) if isinstance(returned, Tensor) else None
        if call is None:
            return
        self.b.output(call.path, "logits", "logits", ("batch", "vocab"), "W_cls·h[CLS] + b  (one score per class)",
                      {}, inputs=(previous,))


def vision_tap_plan(model: nn.Module, pixel_values: Tensor) -> tuple[TapPlan, tuple[str, ...]]:
    """The taps and hooks of a Vision Transformer probed on `pixel_values`, and the labels of the tokens
    before its patches; UnsupportedModelError naming the part that does not match."""
    from tfdebug.adapters.hf.load import quiet_transformers

    with forward_lock(model), quiet_transformers():
        record = probe(model, {"pixel_values": pixel_values})
    planner = VisionPlanner(model, record)
    return planner.plan(), getattr(planner, "prefix", ())

