"""Building blocks of the reference model: LayerNorm, positional encoding, feed-forward."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from tfdebug.core.tap import Tap
from tfdebug.models.config import ModelArgs


class LayerNorm(nn.Module):
    """Layer normalisation over the feature axis, with the notes' a_2 (scale) and b_2 (shift)."""

    def __init__(self, features: int, eps: float = 1e-6):
        super().__init__()
        self.a_2 = nn.Parameter(torch.ones(features))
        self.b_2 = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x: Tensor) -> Tensor:
        mean = x.mean(-1, keepdim=True)  # (B, T, 1)
        std = x.std(-1, keepdim=True)  # (B, T, 1)
        return self.a_2 * (x - mean) / (std + self.eps) + self.b_2


class PositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal position signal: sin on even features, cos on odd ones."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        position = torch.arange(args.block_size, dtype=torch.float32).unsqueeze(1)  # (L, 1)
        frequency = torch.exp(
            torch.arange(0, args.n_embd, 2, dtype=torch.float32) * (-math.log(10000.0) / args.n_embd)
        )  # (D/2,)
        pe = torch.zeros(args.block_size, args.n_embd)
        pe[:, 0::2] = torch.sin(position * frequency)
        pe[:, 1::2] = torch.cos(position * frequency)
        # Not a parameter and not saved: it is a formula, rebuilt on load.
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)  # (1, L, D)

    def table(self, length: int, start: int = 0) -> Tensor:
        """The rows for positions start … start + length − 1: what is added to those tokens. (T, D)

        A copy, not a view: a captured `pe` stage then holds its own rows, not the whole buffer.
        """
        return self.pe[0, start: start + length].clone()  # (T, D)

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        """x: (B, T, D) of the tokens at positions start … start + T − 1 (start > 0 when decoding with a cache)."""
        return x + self.table(x.size(1), start)  # (B, T, D): one table broadcast over the batch


class MLP(nn.Module):
    """Position-wise feed-forward: widen with w1, ReLU, narrow with w2."""

    def __init__(self, args: ModelArgs, prefix: str, tokens: str):
        super().__init__()
        self.w1 = nn.Linear(args.n_embd, args.hidden_dim, bias=False)
        self.w2 = nn.Linear(args.hidden_dim, args.n_embd, bias=False)
        self.dropout = nn.Dropout(args.dropout)
        token_map = {"token": tokens}
        self.taps = nn.ModuleDict({
            "hidden": Tap(f"{prefix}.hidden", "ffn_hidden", ("batch", "token", "hidden"),
                          "ReLU(x·W₁)", tokens=token_map, inputs=(".norm",)),
            "out": Tap(f"{prefix}.out", "ffn_out", ("batch", "token", "model"),
                       "Dropout(h·W₂)", tokens=token_map, inputs=(".hidden",)),
        })

    def forward(self, x: Tensor) -> Tensor:
        hidden = self.taps["hidden"](torch.relu(self.w1(x)))  # (B, T, hidden_dim)
        return self.taps["out"](self.dropout(self.w2(hidden)))  # (B, T, D)
