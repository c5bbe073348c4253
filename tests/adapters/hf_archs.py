"""The architectures tfdebug adapts from Hugging Face: one tiny config each (random weights, no download).

`ARCHITECTURES` is the table the contract test runs over and `docs/models.md` is rendered
from (`python -m tests.adapters.hf_archs`). Each entry: transformers' model type, the
head class that is built, the kind of model, and the config overrides that make it tiny
(a few layers, heads and experts; vocabularies of `VOCAB` ids). An entry with `refused`
names the part tfdebug cannot tap; the test checks that it is refused with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

VOCAB = 40

_DEC = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=64, bos_token_id=0, eos_token_id=0, pad_token_id=0)
_ENC = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            max_position_embeddings=64, pad_token_id=0)
_BART = dict(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
             decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
             pad_token_id=0, bos_token_id=0, eos_token_id=4, decoder_start_token_id=0, forced_eos_token_id=None)
# DeBERTa-v3's attention: relative positions only, content→position and position→content, shared keys.
DEBERTA_V3 = dict(relative_attention=True, pos_att_type=["p2c", "c2p"], position_buckets=8, max_relative_positions=16,
                  position_biased_input=False, share_att_key=True, norm_rel_ebd="layer_norm")
_T5 = dict(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, decoder_start_token_id=0,
           pad_token_id=0, eos_token_id=4)


@dataclass(frozen=True)
class Arch:
    """One architecture: how to build it tiny, and what tfdebug shows of it."""

    model_type: str
    kind: str  # "decoder", "encoder" or "encoder-decoder"
    config: dict
    #: sub-stages this architecture shows beyond the common ones (checked by the contract test)
    shows: tuple[str, ...] = ()
    #: the sentence tfdebug refuses it with (None: captured and verified)
    refused: str | None = None
    notes: str = ""
    extra: dict = field(default_factory=dict)


def _dec(**over):
    return {**_DEC, **over}


ARCHITECTURES: tuple[Arch, ...] = (
    # decoder language models
    Arch("gpt2", "decoder", dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64, bos_token_id=0,
                                 eos_token_id=0), notes="fused c_attn"),
    Arch("gpt_neox", "decoder", _dec(rotary_pct=0.5), shows=("parallel",), notes="fused, per-head interleaved QKV; parallel attention + MLP"),
    Arch("gptj", "decoder", dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64, rotary_dim=4,
                                 bos_token_id=0, eos_token_id=0), shows=("parallel",), notes="parallel attention + MLP"),
    Arch("opt", "decoder", dict(vocab_size=VOCAB, hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                                num_attention_heads=4, max_position_embeddings=64, word_embed_proj_dim=32,
                                bos_token_id=0, eos_token_id=0, pad_token_id=1)),
    Arch("bloom", "decoder", dict(vocab_size=VOCAB, hidden_size=32, n_layer=2, n_head=4), shows=("alibi",),
         notes="attention in its own code, followed op by op; ALiBi in one fused baddbmm"),
    Arch("falcon", "decoder", dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4),
         shows=("parallel",), notes="multi-query, rotary, parallel attention + MLP (Falcon-7B's layout); its own "
                                    "code before transformers 5.25, the attention interface since (Falcon-RW's ALiBi "
                                    "split out of the mask)"),
    Arch("llama", "decoder", _dec(), notes="grouped-query attention"),
    Arch("mistral", "decoder", _dec(sliding_window=4), shows=("sliding",)),
    Arch("mixtral", "decoder", _dec(num_local_experts=4, num_experts_per_tok=2), shows=("router_logits", "routing", "each_expert")),
    Arch("qwen2", "decoder", _dec()),
    Arch("qwen2_moe", "decoder", _dec(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16,
                                      shared_expert_intermediate_size=32), shows=("router_logits", "routing", "each_expert")),
    Arch("qwen3", "decoder", _dec(head_dim=8), shows=("q_norm", "k_norm")),
    Arch("qwen3_moe", "decoder", _dec(head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16),
         shows=("q_norm", "k_norm", "router_logits", "routing", "each_expert")),
    Arch("gemma", "decoder", _dec(head_dim=8), shows=("embed_scale",)),
    Arch("gemma2", "decoder", _dec(head_dim=8, sliding_window=4, final_logit_softcapping=2.0,
                                   attn_logit_softcapping=5.0, query_pre_attn_scalar=8),
         shows=("embed_scale", "softcap", "post_norm", "final_softcap", "sliding")),
    Arch("gemma3_text", "decoder", _dec(head_dim=8, sliding_window=4, query_pre_attn_scalar=8),
         shows=("embed_scale", "q_norm", "k_norm", "post_norm", "sliding")),
    Arch("phi", "decoder", _dec(partial_rotary_factor=0.5), shows=("parallel",)),
    Arch("phi3", "decoder", _dec(), notes="fused qkv_proj and gate_up_proj"),
    Arch("starcoder2", "decoder", _dec()),
    Arch("olmo", "decoder", _dec()),
    Arch("olmo2", "decoder", _dec(), shows=("q_norm", "k_norm", "post_norm")),
    Arch("cohere", "decoder", _dec(logit_scale=0.5), shows=("parallel", "logit_scale")),
    Arch("granite", "decoder", _dec(embedding_multiplier=3.0, logits_scaling=4.0, residual_multiplier=0.5,
                                    attention_multiplier=0.25), shows=("embed_scale", "logit_scale")),
    Arch("stablelm", "decoder", _dec(partial_rotary_factor=0.5)),
    Arch("deepseek_v3", "decoder", _dec(n_routed_experts=4, num_experts_per_tok=2, n_group=1, topk_group=1,
                                        moe_intermediate_size=16, first_k_dense_replace=1, q_lora_rank=16,
                                        kv_lora_rank=16, qk_rope_head_dim=4, qk_nope_head_dim=4, v_head_dim=8,
                                        num_key_value_heads=4,
                                        rope_parameters={"rope_type": "default", "rope_theta": 10000.0}),
         shows=("router_logits", "routing", "each_expert"), notes="multi-head latent attention: compressed q and kv, then the heads"),
    Arch("gpt_oss", "decoder", _dec(head_dim=8, num_local_experts=4, num_experts_per_tok=2, sliding_window=4,
                                    layer_types=["sliding_attention", "full_attention"]),
         shows=("sinks", "router_logits", "routing", "each_expert", "sliding")),
    # encoders
    Arch("bert", "encoder", _ENC),
    Arch("roberta", "encoder", {**_ENC, "pad_token_id": 1}),
    Arch("distilbert", "encoder", dict(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                                       max_position_embeddings=64, pad_token_id=0)),
    Arch("albert", "encoder", {**_ENC, "embedding_size": 16, "num_hidden_layers": 3},
         notes="one layer module run 3 times (shared weights): named per run, enc.0 … enc.2"),
    Arch("electra", "encoder", {**_ENC, "embedding_size": 16}),
    Arch("deberta-v2", "encoder", {**_ENC, **DEBERTA_V3}, shows=("position_bias",),
         notes="disentangled attention in its own code, followed op by op (DeBERTa-v3's settings)"),
    Arch("xlm-roberta", "encoder", {**_ENC, "pad_token_id": 1}),
    Arch("modernbert", "encoder", dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                                       num_attention_heads=4, max_position_embeddings=64, pad_token_id=0,
                                       global_attn_every_n_layers=3, local_attention=4,
                                       bos_token_id=2, eos_token_id=3, cls_token_id=2, sep_token_id=3), shows=("sliding",)),
    # encoder–decoders
    Arch("t5", "encoder-decoder", _T5, shows=("position_bias",)),
    Arch("mt5", "encoder-decoder", {**_T5, "feed_forward_proj": "gated-gelu"}, shows=("position_bias",)),
    Arch("bart", "encoder-decoder", _BART),
    Arch("mbart", "encoder-decoder", _BART),
    Arch("marian", "encoder-decoder", {**_BART, "decoder_vocab_size": VOCAB}),
    Arch("pegasus", "encoder-decoder", _BART),
)

BY_TYPE = {a.model_type: a for a in ARCHITECTURES}


def build(arch: Arch):
    """The tiny model of `arch` (seeded random weights, eval mode, eager-comparable float32)."""
    import torch
    import transformers

    config = transformers.AutoConfig.for_model(arch.model_type, **arch.config)
    auto = {"decoder": transformers.AutoModelForCausalLM, "encoder": transformers.AutoModelForMaskedLM,
            "encoder-decoder": transformers.AutoModelForSeq2SeqLM}[arch.kind]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = auto.from_config(config)
    return model.eval()


# ----- docs/models.md -----------------------------------------------------------------------
DOC = Path(__file__).resolve().parents[2] / "docs" / "models.md"
BEGIN, END = "<!-- architectures: begin (generated by python -m tests.adapters.hf_archs) -->", \
    "<!-- architectures: end -->"
_SHOWN = {"parallel": "parallel attention + FFN", "sliding": "sliding-window mask", "router_logits": "router logits",
          "routing": "experts chosen and weights", "each_expert": "each expert's output where it runs", "q_norm": "q/k norm", "k_norm": None, "sinks": "attention sinks",
          "softcap": "attention soft cap", "final_softcap": "final logit soft cap", "embed_scale": "embedding multiplier",
          "logit_scale": "logit scaling", "post_norm": "norm after each sublayer", "position_bias": "position bias",
          "alibi": "ALiBi"}


def render_table() -> str:
    """The Markdown table of every architecture in ARCHITECTURES (what docs/models.md shows)."""
    rows = ["| model type | kind | tfdebug | sub-stages beyond the common ones | notes |",
            "|---|---|---|---|---|"]
    for a in ARCHITECTURES:
        shown = ", ".join(t for t in (_SHOWN[s] for s in a.shows) if t)
        status = "captured, verified" if a.refused is None else "refused"
        note = a.notes if a.refused is None else f"refused: {a.refused}"
        rows.append(f"| `{a.model_type}` | {a.kind} | {status} | {shown} | {note} |")
    captured = sum(a.refused is None for a in ARCHITECTURES)
    rows.append("")
    rows.append(f"{captured} of {len(ARCHITECTURES)} captured and verified stage by stage; "
                f"{len(ARCHITECTURES) - captured} refused with the reason shown.")
    return "\n".join(rows)


def render_doc(text: str) -> str:
    """`text` (docs/models.md) with the part between the markers replaced by `render_table()`."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{render_table()}\n{END}{tail}"


if __name__ == "__main__":
    DOC.write_text(render_doc(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {DOC}")
