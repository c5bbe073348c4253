"""A toy model wrapped in a minimal adapter: the pattern README shows for "wrap your own module".

Three taps, one input field, one attention block (scores → probs → context), no
vocabulary file: characters are tokens.
"""

from __future__ import annotations

import torch
from torch import nn

from tfdebug.adapters.base import InputField, ModelAdapter, Prepared
from tfdebug.core.tap import Tap

TOKENS = {"token": "text"}
ATTN = {"query": "text", "key": "text"}


class ToyAttention(nn.Module):
    """Embed characters, one head of self-attention, no projections: the smallest thing with probs."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.embed = nn.Embedding(128, dim)
        self.taps = nn.ModuleDict({
            "scores": Tap("tok.0.attn.scores", "scores", ("batch", "query", "key"), "x·xᵀ/√d", tokens=ATTN),
            "probs": Tap("tok.0.attn.probs", "softmax", ("batch", "query", "key"), "softmax(scores)", tokens=ATTN),
            "context": Tap("tok.0.attn.context", "attn_v", ("batch", "token", "model"), "probs·x", tokens=TOKENS),
        })

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids)  # (B, T, D)
        scores = self.taps["scores"](x @ x.transpose(1, 2) / x.shape[-1] ** 0.5)  # (B, T, T)
        probs = self.taps["probs"](scores.softmax(dim=-1))  # (B, T, T)
        return self.taps["context"](probs @ x)  # (B, T, D)


class ToyAdapter(ModelAdapter):
    """One `text` field; each character is a token."""

    inputs = (InputField("text", "Text", "any characters"),)
    presets = ({"text": "hello"},)
    layer_titles = {"tok": "Toy layer"}

    def __init__(self, seed: int = 0):
        torch.manual_seed(seed)
        self.name = "toy"
        self.module = ToyAttention().eval()

    def config(self) -> dict:
        return {"dim": self.module.embed.embedding_dim}

    def prepare(self, texts) -> Prepared:
        texts = self.check_texts(texts)
        chars = list(texts["text"])
        ids = torch.tensor([[min(ord(c), 127) for c in chars]])
        return Prepared(texts=texts, args=(ids,), tokens={"text": chars})
