"""The reference encoder–decoder translator as an adapter: `demo`, `random` and model folders."""

from __future__ import annotations

from typing import Mapping

import torch
from torch import nn

from tfdebug.adapters.base import InputField, ModelAdapter, Prepared
from tfdebug.core.readout import Readout
from tfdebug.models.generate import ReferenceDecoder
from tfdebug.models.loader import LoadedModel, load_model
from tfdebug.models.vocab import BUILTIN_PAIRS


class ReferenceAdapter(ModelAdapter):
    """The notes' Transformer: a source sentence for the encoder, a target prefix for the decoder."""

    kind = "reference"

    inputs = (
        InputField("src", "Source sentence", "English, words separated by spaces"),
        InputField("tgt", "Target prefix", "Chinese, words separated by spaces", required=False),
    )
    presets = tuple({"src": en, "tgt": zh} for en, zh in BUILTIN_PAIRS)
    layer_titles = {"enc": "Encoder layer", "dec": "Decoder layer"}
    stack_titles = {"enc": "Encoder", "dec": "Decoder"}
    site_titles = {"src": "Source embedding + PE", "tgt": "Target embedding + PE", "enc": "Encoder norm",
                   "dec": "Decoder norm", "head": "lm_head → logits"}

    def __init__(self, loaded: LoadedModel):
        self.loaded = loaded
        self.name = loaded.name
        self.module = loaded.model
        self.device = loaded.device
        self.dtype = loaded.dtype

    def config(self) -> dict:
        return self.loaded.args.to_dict()

    def vocabulary(self) -> list[str]:
        return list(self.loaded.tgt_vocab.tokens)  # the decoder's words: what logits score

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        texts = self.check_texts(texts)
        p = self.loaded.prepare(texts["src"], texts["tgt"])
        return Prepared(texts=texts, args=(p.src, p.tgt), tokens=p.tokens, unknown=list(p.unknown))


    def readout(self) -> Readout:
        """The decoder's final LayerNorm and `lm_head`, reading the last decoder layer's output."""
        model = self.loaded.model
        last = model.args.n_layer - 1
        return Readout(model.transformer.decoder.norm, model.lm_head, f"dec.{last}.ffn.resid", "dec.norm")

    def stage_module(self, name: str) -> nn.Module | None:
        """The W^O of an attention block's `out` stage (`enc.0.attn.out`, `dec.1.cross_attn.out` …)."""
        parts = name.split(".")
        if len(parts) != 4 or parts[3] != "out" or not parts[1].isdigit():
            return None
        stack = {"enc": self.loaded.model.transformer.encoder, "dec": self.loaded.model.transformer.decoder}
        attribute = {"attn": "attention", "self_attn": "mask_attention", "cross_attn": "attention"}
        if parts[0] not in stack or parts[2] not in attribute or int(parts[1]) >= self.loaded.model.args.n_layer:
            return None
        return getattr(stack[parts[0]].layers[int(parts[1])], attribute[parts[2]]).wo

    def step_decoder(self, prepared: Prepared, use_cache: bool = True) -> ReferenceDecoder:
        """Translate the source after <bos> and the typed target prefix, one word per step."""
        src, tgt = prepared.args
        return ReferenceDecoder(self.loaded.model, src, tgt[0].tolist(), self.loaded.tgt_vocab, use_cache)


def load_reference(spec: str, device: str | torch.device | None, dtype: str | torch.dtype) -> ReferenceAdapter:
    """`demo`, `random` or a reference-model folder as an adapter."""
    return ReferenceAdapter(load_model(spec, device, dtype))

