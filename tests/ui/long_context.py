"""A long prompt on a tiny 2-layer Llama-style model, saved as a Hugging Face folder (byte-level tokenizer:
newlines, spaces and a special token among the tokens), for the long-context view's tests and pictures."""

from __future__ import annotations

from pathlib import Path

SHARPEN = 20.0  # scores with a spread of a few units (the init's give ~0: every weight 1/(query+1))
UNIT = "I love you\nthe cat sat on the mat\n<|endoftext|> you love me\n"  # 16 tokens


def long_llama(folder: Path, tokens: int) -> tuple[Path, str]:
    """(the model's folder, a prompt of exactly `tokens` tokens) for a seeded 2-layer Llama
    (4 query heads sharing 2 K/V heads) whose positions reach that far."""
    import torch
    import transformers

    from tests.adapters.hf_tiny import save_folder
    from tests.ui.test_token_strip_text import byte_level_tokenizer

    tokenizer = byte_level_tokenizer()
    ids = tokenizer.encode(UNIT * (tokens // 16 + 1)).ids[:tokens]
    prompt = tokenizer.decode(ids, skip_special_tokens=False)
    assert len(tokenizer.encode(prompt).ids) == tokens
    config = transformers.LlamaConfig(vocab_size=tokenizer.get_vocab_size(), hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                      max_position_embeddings=tokens, bos_token_id=0, eos_token_id=0,
                                      pad_token_id=0)
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.manual_seed(0)
        model = transformers.LlamaForCausalLM(config).eval()
        for layer in model.model.layers:  # larger q and k than the init's: attention that picks keys, not uniform
            layer.self_attn.q_proj.weight.mul_(SHARPEN)
            layer.self_attn.k_proj.weight.mul_(SHARPEN)
    return save_folder(model, folder, tokenizer), prompt
