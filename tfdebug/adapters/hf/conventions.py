"""The naming conventions of Hugging Face modules, as data: which child projects what.

The generic planner (`hf_names`) finds the structure of a model from one probing run;
these tables say what each child of an attention or feed-forward module is, by the last
part of its path. A family that names its children differently is one more entry here.
"""

from __future__ import annotations

from torch import nn

# Attention: the module that projects one role, by the last part of its path.
QUERY = frozenset({"q_proj", "query", "q", "q_lin", "q_b_proj", "wq", "query_proj"})
KEY = frozenset({"k_proj", "key", "k", "k_lin", "wk", "key_proj"})
VALUE = frozenset({"v_proj", "value", "v", "v_lin", "wv", "value_proj"})
# Fused projections and how their output is laid out: 'blocks' (all of Q, then K, then V:
# GPT-2's c_attn, Phi-3's qkv_proj, ModernBERT's Wqkv) or 'heads' (per head [q | k | v]: GPT-NeoX).
FUSED_QKV = {"c_attn": "blocks", "qkv_proj": "blocks", "Wqkv": "blocks", "query_key_value": "heads",
             "qkv": "blocks", "W_pack": "blocks"}
# Per-head (or per-projection) norms of the query and key.
QK_NORM = {"q_norm": "q", "k_norm": "k", "q_layernorm": "q", "k_layernorm": "k"}

# Families whose own eager attention computes the scores (and the softmax) in float32 whatever the model's
# dtype: the tapped attention does the same, so a half-precision pass stays equal to theirs bit for bit.
FLOAT32_SCORES = frozenset({"gptj", "codegen", "gpt_neo"})

# Feed-forward: the gate and up projections of a gated FFN, a fused gate+up, an activation module.
GATE = frozenset({"gate_proj", "w1", "wi_0", "fc_gate"})
UP = frozenset({"up_proj", "w3", "wi_1"})
FUSED_GATE_UP = frozenset({"gate_up_proj"})
ACTIVATION = frozenset({"act_fn", "act", "activation_fn", "activation", "gelu_act", "intermediate_act_fn"})
# Mixture of experts: the router and the experts of a sparse FFN.
ROUTER = frozenset({"gate", "router"})
EXPERTS = frozenset({"experts"})
SHARED_EXPERT = frozenset({"shared_expert", "shared_experts"})

# Embeddings beside the token embedding, by the last part of their path.
POSITION_EMBEDDINGS = frozenset({"wpe", "position_embeddings", "embed_positions", "pos_embed",
                                 "position_embedding"})
TYPE_EMBEDDINGS = frozenset({"token_type_embeddings"})

def last(path: str) -> str:
    """The last part of a module path: 'model.layers.0.self_attn.q_proj' -> 'q_proj'."""
    return path.rsplit(".", 1)[-1]


def is_norm(module: nn.Module) -> bool:
    """Norms by class: torch's LayerNorm/RMSNorm and every class whose name says Norm (LlamaRMSNorm, T5LayerNorm …)."""
    return isinstance(module, (nn.LayerNorm, getattr(nn, "RMSNorm", nn.LayerNorm))) or "Norm" in type(module).__name__


def is_linear(module: nn.Module) -> bool:
    """A projection: nn.Linear, or GPT-2's Conv1D (a Linear with its weight transposed)."""
    return isinstance(module, nn.Linear) or type(module).__name__ == "Conv1D"


def is_dropout(module: nn.Module) -> bool:
    return isinstance(module, nn.Dropout) or "Dropout" in type(module).__name__


def norm_kind(module: nn.Module) -> tuple[str, str]:
    """'layer_norm' (with a mean and a shift) or 'rms_norm', and its formula."""
    if isinstance(module, nn.LayerNorm) or "LayerNorm" in type(module).__name__ and hasattr(module, "bias") \
            and getattr(module, "bias", None) is not None:
        return "layer_norm", "γ·(x − μ)/√(σ² + ε) + β"
    return "rms_norm", "γ·x/√(mean(x²) + ε)"
