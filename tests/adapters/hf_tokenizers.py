"""Tokenizers built the way published checkpoints ship them (no download), for the input tests.

`wordpiece_bert_folder` writes a BERT-style encoder folder whose tokenizer.json fixes padding to
128 and truncation at 128 (as many sentence encoders do), with a tokenizer_config.json naming
BertTokenizer; `chat_llama_folder` writes a LLaMA-style folder whose tokenizer carries a chat
template. Both hold random weights saved with save_pretrained.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

transformers = pytest.importorskip("transformers")

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ("the quick brown fox jumps over lazy dog in paris a cat sat on mat and it was very happy ##s ##ing ##ed "
         "what is capital of france . , ? ! hello world").split()
FIXED = 128
VOCAB = 64


def wordpiece_tokenizer(padding: int | None = FIXED, truncation: int | None = FIXED):
    """A lower-casing WordPiece tokenizer with [CLS] … [SEP] (and pair) templates; padding and truncation
    fixed in its tokenizer.json when given."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {t: i for i, t in enumerate(SPECIALS + WORDS)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                       special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tok.decoder = decoders.WordPiece()
    if padding:
        tok.enable_padding(length=padding, pad_id=0, pad_token="[PAD]")
    if truncation:
        tok.enable_truncation(max_length=truncation)
    return tok


def _seeded(build):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return build().eval()


def tiny_bert(layers: int = 2):
    """A tiny BERT encoder (BertModel, as sentence encoders load) with random weights, 512 positions."""
    cfg = transformers.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=layers, num_attention_heads=4,
                                  intermediate_size=64, max_position_embeddings=512, pad_token_id=0,
                                  architectures=["BertModel"])
    return _seeded(lambda: transformers.BertModel(cfg))


def wordpiece_bert_folder(folder: Path) -> Path:
    """A BERT-style encoder folder as a sentence-transformers checkpoint ships it: tokenizer.json with fixed
    padding and truncation at 128, tokenizer_config.json naming BertTokenizer (model_max_length 512)."""
    tiny_bert().save_pretrained(str(folder))
    wordpiece_tokenizer().save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 512,
              "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
              "mask_token": "[MASK]"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return folder


CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")
CHAT_SPECIALS = ["<s>", "</s>", "<unk>", "<|user|>", "<|assistant|>", "<|end|>"]


def chat_tokenizer():
    """A word-level tokenizer whose specials are a chat's role markers (<s> starts a plain text); words
    carry a leading ▁ and punctuation does not, so its decode ("it is paris.") differs from its tokens
    joined with spaces ("it is paris .")."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    words = ["▁", ".", "?", "▁what", "▁is", "▁the", "▁capital", "▁of", "▁france", "▁paris", "▁it", "▁hello",
             "▁world", "▁a", "▁city"]
    vocab = {t: i for i, t in enumerate(CHAT_SPECIALS + words)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Metaspace(), pre_tokenizers.Punctuation()])
    tok.decoder = decoders.Metaspace()
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)])
    tok.add_special_tokens(CHAT_SPECIALS)
    return tok


def chat_llama_folder(folder: Path) -> Path:
    """A tiny LLaMA-style chat model folder: random weights, a tokenizer with a chat template."""
    cfg = transformers.LlamaConfig(vocab_size=len(CHAT_SPECIALS) + 15, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                   bos_token_id=0, eos_token_id=1, pad_token_id=1, architectures=["LlamaForCausalLM"])
    _seeded(lambda: transformers.LlamaForCausalLM(cfg)).save_pretrained(str(folder))
    chat_tokenizer().save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
              "unk_token": "<unk>", "chat_template": CHAT_TEMPLATE}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return folder
