"""A GPT-style model of your own that calls F.scaled_dot_product_attention, opened in tfdebug.

    cd REPO && tfdebug gui --model torch:examples.gpt_block:factory --goto blocks.0.attn.probs

Copy the pattern: `factory()` returns (module, make_inputs); `make_inputs(text)` returns
the module's positional arguments and the token strings they stand for.
"""
import torch
import torch.nn.functional as F
from torch import nn

EXAMPLES = ("the cat sat on the mat because it was warm",)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int, n_head: int):
        super().__init__()
        self.n_head, self.c_attn, self.c_proj = n_head, nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))  # (B, H, T, Dh)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # tfdebug shows scores … probs … context
        return self.c_proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int):
        super().__init__()
        self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(n_embd), CausalSelfAttention(n_embd, n_head), nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int = 256, n_embd: int = 64, n_head: int = 4, n_layer: int = 2, block_size: int = 64):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f, self.lm_head = nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.size(1), device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def make_inputs(text: str):
    words = text.split()  # one token per word; a real model would use its tokenizer here
    return (torch.tensor([[sum(map(ord, w)) % 256 for w in words]]),), words


def factory():
    torch.manual_seed(0)
    return TinyGPT().eval(), make_inputs
