"""A bare torch.nn.TransformerEncoderLayer, opened in tfdebug (its stages are enc.0.attn.* and enc.0.ffn.*).

    cd REPO && tfdebug gui --model torch:examples.encoder_layer:factory --goto enc.0.attn.probs
"""
import torch
from torch import nn

EXAMPLES = ("the cat sat on the mat and the dog sat on the cat",)
D_MODEL = 64


def make_inputs(text: str):
    words = text.split()
    # A fixed random vector per word (seeded by the word), so equal words attend alike.
    rows = [torch.randn(D_MODEL, generator=torch.Generator().manual_seed(sum(map(ord, w)))) for w in words]
    return (torch.stack(rows)[None],), words  # (1, T, D_MODEL)


def factory():
    torch.manual_seed(0)
    return nn.TransformerEncoderLayer(D_MODEL, nhead=4, dim_feedforward=128, batch_first=True).eval(), make_inputs
