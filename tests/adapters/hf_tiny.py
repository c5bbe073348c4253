"""Tiny Hugging Face models built from their configs (seeded, no download) and a word-level tokenizer.

Every test of the Hugging Face adapter builds its model here: a few layers, a few heads,
random weights. `save_folder` writes a model as a Hugging Face folder (config.json,
model.safetensors, tokenizer.json), the way a user's checkpoint looks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

SENTENCES = ["I love you", "the cat sat on the mat", "apple is delicious", "我 爱 你", "苹果 很 好吃"]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "</s>"]


def word_tokenizer(add_cls_sep: bool = False):
    """A word-level tokenizer over SENTENCES (ids 0–4 are the special tokens)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(SENTENCES, trainers.WordLevelTrainer(special_tokens=SPECIALS))
    if add_cls_sep:
        tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]",
                                                           special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    return tok


VOCAB = 40  # more than the tokenizer's words: logits cover ids it never produces


def _seeded(build):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return build().eval()


def gpt2(n_layer: int = 2, n_embd: int = 32, n_head: int = 4, vocab: int = VOCAB):
    cfg = transformers.GPT2Config(vocab_size=vocab, n_embd=n_embd, n_layer=n_layer, n_head=n_head, n_positions=64,
                                  bos_token_id=0, eos_token_id=0)
    return _seeded(lambda: transformers.GPT2LMHeadModel(cfg))


def llama(n_layer: int = 2):
    """LLaMA-style with grouped-query attention: 4 query heads share 2 K/V heads."""
    cfg = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=n_layer,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                   bos_token_id=0, eos_token_id=0, pad_token_id=0)
    return _seeded(lambda: transformers.LlamaForCausalLM(cfg))


def bert(n_layer: int = 2):
    cfg = transformers.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=n_layer, num_attention_heads=4,
                                  intermediate_size=64, max_position_embeddings=64, pad_token_id=0)
    return _seeded(lambda: transformers.BertForMaskedLM(cfg))


def t5(n_layer: int = 2):
    cfg = transformers.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=n_layer, num_heads=4,
                                decoder_start_token_id=0, pad_token_id=0, eos_token_id=4)
    return _seeded(lambda: transformers.T5ForConditionalGeneration(cfg))


def save_folder(model, folder: Path, tokenizer=None) -> Path:
    """`model` and a tokenizer saved as a Hugging Face folder (safetensors weights)."""
    model.save_pretrained(str(folder))
    (tokenizer or word_tokenizer(model.config.model_type == "bert")).save(str(folder / "tokenizer.json"))
    return folder


def no_hooks_left(model) -> bool:
    """Whether every module of `model` is free of forward hooks and pre-hooks."""
    return all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())


def backtracking_tokenizer(folder):
    """The folder's tokenizer with a pre-tokenizer regex that backtracks exponentially: it reads ordinary text,
    and a run of a's not followed by b makes the Rust regex engine panic at its retry limit."""
    path = folder / "tokenizer.json"
    tokenizer = json.loads(path.read_text())
    tokenizer["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": "(a|a)+b"}, "behavior": "Isolated",
                                  "invert": False}
    path.write_text(json.dumps(tokenizer))
