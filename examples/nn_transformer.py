"""A torch.nn.Transformer (encoder–decoder) opened in tfdebug: enc.{i}.attn.*, dec.{i}.self_attn.*, dec.{i}.cross_attn.*.

    cd REPO && tfdebug gui --model torch:examples.nn_transformer:factory --goto dec.0.cross_attn.probs

The text is 'source => target'; make_inputs gives each side its own token stream.
"""
import torch
from torch import nn

EXAMPLES = ("the cat sat on the mat => le chat est assis",)
D_MODEL = 32


def _embed(words):
    rows = [torch.randn(D_MODEL, generator=torch.Generator().manual_seed(sum(map(ord, w)))) for w in words]
    return torch.stack(rows)[None]  # (1, T, D_MODEL)


def make_inputs(text: str):
    src, _, tgt = text.partition("=>")
    src, tgt = src.split(), tgt.split() or ["<s>"]
    causal = nn.Transformer.generate_square_subsequent_mask(len(tgt))
    return (_embed(src), _embed(tgt), None, causal), {"src": src, "tgt": tgt}


def factory():
    torch.manual_seed(0)
    model = nn.Transformer(D_MODEL, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=64,
                           batch_first=True)
    return model.eval(), make_inputs
