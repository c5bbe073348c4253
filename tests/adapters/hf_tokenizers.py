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
