"""Decomposed scaled_dot_product_attention gives the fused kernel's numbers, stage by stage."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import scaled_dot_product_attention as sdpa_bound_at_import

from tfdebug.adapters.torch_nn.adapter import wrap
from tfdebug.adapters.torch_nn.math import decomposed_sdpa
from tfdebug.sessions.session import DebugSession
from tfdebug.core.errors import UnsupportedModelError


def _qkv(L=5, S=5, H=4, Hkv=None, E=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(2, H, L, E, generator=g), torch.randn(2, Hkv or H, S, E, generator=g),
            torch.randn(2, Hkv or H, S, E, generator=g))


def _run(q, k, v, **kw):
    seen = {}

    def tap(stage, t):
        seen[stage] = t
        return t

    return decomposed_sdpa(q, k, v, tap=tap, **kw), seen


def _bool_mask(L, S, seed=1):
    return torch.rand(L, S, generator=torch.Generator().manual_seed(seed)) > 0.3


def _float_mask(L, S):
    return torch.where(_bool_mask(L, S), 0.0, float("-inf")) + 0.1 * torch.arange(S).float()


CASES = {
    "no mask": (dict(), dict()),
    "causal square": (dict(), dict(is_causal=True)),
    "causal more keys (top-left)": (dict(L=3, S=6), dict(is_causal=True)),
    "causal more queries (top-left)": (dict(L=6, S=3), dict(is_causal=True)),
    "bool mask": (dict(L=4, S=6), dict(attn_mask=_bool_mask(4, 6))),
    "float mask": (dict(L=4, S=6), dict(attn_mask=_float_mask(4, 6))),
    "scale=": (dict(), dict(scale=0.3)),
    "grouped-query": (dict(H=8, Hkv=2), dict(enable_gqa=True)),
}


@pytest.mark.parametrize("case", CASES)
def test_each_case_matches_the_fused_kernel(case):
    shape, kw = CASES[case]
    q, k, v = _qkv(**shape)
    out, seen = _run(q, k, v, **kw)
    fused = F.scaled_dot_product_attention(q, k, v, **kw)
    assert out.shape == fused.shape
    assert (out - fused).abs().max() <= 1e-5
    masked = kw.get("is_causal") or "attn_mask" in kw
    assert ("masked" in seen) == bool(masked)
    assert ("k_repeat" in seen and "v_repeat" in seen) == ("enable_gqa" in kw)
    # softmax rows sum to one; with the scale given, `scaled` is scores times it
    assert torch.allclose(seen["probs"].sum(-1), torch.ones(()), atol=1e-5)
    if "scale" in kw:
        assert torch.allclose(seen["scaled"], seen["scores"] * 0.3)


def test_causal_mask_is_aligned_top_left_for_non_square():
    q, k, v = _qkv(L=3, S=6)
    _, seen = _run(q, k, v, is_causal=True)
    masked = seen["masked"][0, 0]
    # query i sees keys 0..i, as torch.ones(L, S).tril() does (not the bottom-right alignment)
    assert torch.isinf(masked[0, 1:]).all() and not torch.isinf(masked[0, 0])
    assert not torch.isinf(masked[2, :3]).any() and torch.isinf(masked[2, 3:]).all()


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_fully_masked_rows_give_zero_like_the_fused_kernel(kind):
    q, k, v = _qkv(L=4, S=5)
    keep = torch.ones(4, 5, dtype=torch.bool)
    keep[2] = False
    mask = keep if kind == "bool" else torch.where(keep, 0.0, float("-inf"))
    out, seen = _run(q, k, v, attn_mask=mask)
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.equal(seen["probs"][:, :, 2], torch.zeros(2, 4, 5))
    assert torch.equal(out[:, :, 2], torch.zeros(2, 4, 8)) and torch.equal(fused[:, :, 2], out[:, :, 2])
    assert (out - fused).abs().max() <= 1e-5 and not out.isnan().any()


def test_dropout_is_refused_with_a_sentence():
    q, k, v = _qkv()
    with pytest.raises(UnsupportedModelError, match=r"dropout_p=0\.1.*dropout_p=0\.0"):
        _run(q, k, v, dropout_p=0.1)


def test_a_replaced_stage_flows_downstream():
    q, k, v = _qkv()

    def tap(stage, t):
        return torch.full_like(t, 1.0 / t.size(-1)) if stage == "probs" else t

    out = decomposed_sdpa(q, k, v, tap=tap)
    assert torch.allclose(out, v.mean(-2, keepdim=True).expand_as(out), atol=1e-6)


class GroupedQueryAttention(nn.Module):
    """A module of one's own: grouped-query attention through a name bound at import time."""

    def __init__(self, n_embd=32, n_head=8, n_kv=2):
        super().__init__()
        self.n_head, self.n_kv, self.dh = n_head, n_kv, n_embd // n_head
        self.q = nn.Linear(n_embd, n_embd)
        self.kv = nn.Linear(n_embd, 2 * n_kv * self.dh)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q(x).view(B, T, self.n_head, self.dh).transpose(1, 2)
        k, v = (t.view(B, T, self.n_kv, self.dh).transpose(1, 2) for t in self.kv(x).chunk(2, -1))
        return sdpa_bound_at_import(q, k, v, is_causal=True, enable_gqa=True)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(GroupedQueryAttention() for _ in range(2))

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x).transpose(1, 2).flatten(2)
        return x


def _make(text):
    words = text.split()
    return (torch.randn(1, len(words), 32, generator=torch.Generator().manual_seed(3)),), words


def test_own_module_with_grouped_query_attention_is_named_by_module_path_and_verified():
    torch.manual_seed(0)
    session = DebugSession(wrap(Stack(), _make), {"text": "one two three four"})
    names = session.plan.names()
    assert names[:10] == [f"blocks.0.attn.{s}" for s in ("q_split", "k_split", "v_split", "k_repeat", "v_repeat",
                                                      "scores", "scaled", "masked", "probs", "context")]
    assert "blocks.1.attn.probs" in names
    k_repeat = session.plan.find("blocks.0.attn.k_repeat")
    assert k_repeat.shape == (1, 8, 4, 4) and k_repeat.info.kind == "kv_repeat"
    assert session.plan.find("blocks.0.attn.probs").info.tokens == {"query": "text", "key": "text"}
    captures, _ = session.capture_all()
    assert session.verification.ok and session.verification.max_abs_diff <= 1e-5
    assert sdpa_bound_at_import is F.scaled_dot_product_attention  # the bound name is back
