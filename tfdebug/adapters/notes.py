"""`notes`: the reference Transformer at the notes' sizes, so the window shows the notes' shapes.

d_model 512, 8 heads (d_k = 64), a batch of 32 sentences of 10 tokens, random weights:
the head split reads (32,10,512) —view→ (32,10,8,64) —transpose→ (32,8,10,64) and the
decoder's causal mask (1,1,10,10) is broadcast over the scores (32,8,10,10).

The typed sentence pair fills all 32 rows of the batch (so the token labels hold at every
batch index); each sentence is padded with <pad> to 10 tokens, and then the pass masks
padding too. One layer per stack keeps a pass quick on a CPU.
"""

from __future__ import annotations

from typing import Mapping

import torch

from tfdebug.adapters.base import Prepared
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.core.devices import resolve_device, resolve_dtype
from tfdebug.core.errors import EmptyInputError, InputError
from tfdebug.core.phrases import Phrase
from tfdebug.models.loader import place, random_model
from tfdebug.models.vocab import BOS, BUILTIN_PAIRS, PAD, SPECIALS

BATCH, TOKENS, D_MODEL, HEADS = 32, 10, 512, 8
CONFIG = dict(n_embd=D_MODEL, n_heads=HEADS, n_layer=1, max_seq_len=TOKENS)

# Ten source words and <bos> plus nine target words: nothing is padded, only the future is masked.
FULL_PAIR = ("I ate a sweet apple yesterday and it was delicious", "我 昨天 吃 了 一个 苹果 ， 很 好吃")


class NotesAdapter(ReferenceAdapter):
    """The reference adapter over a batch of 32 copies of one sentence pair, each padded to 10 tokens."""

    presets = ({"src": FULL_PAIR[0], "tgt": FULL_PAIR[1]},) + tuple({"src": en, "tgt": zh} for en, zh in BUILTIN_PAIRS)

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        texts = self.check_texts(texts)
        loaded = self.loaded
        src = loaded.src_vocab.encode(texts["src"])
        if not src.ids:
            raise EmptyInputError("The source sentence is empty: type at least one word.", id="input.source_empty")
        tgt = loaded.tgt_vocab.encode(texts["tgt"])
        src_ids, src_tokens = _padded(src.ids, src.tokens, Phrase("source", id="notes.source"))
        tgt_ids, tgt_tokens = _padded([BOS] + tgt.ids, ["<bos>"] + tgt.tokens, Phrase("target", id="notes.target"))
        device = loaded.device
        batch = (torch.tensor([src_ids], dtype=torch.long, device=device).expand(BATCH, TOKENS).contiguous(),
                 torch.tensor([tgt_ids], dtype=torch.long, device=device).expand(BATCH, TOKENS).contiguous())
        notes = [Phrase("The sentence pair fills all {rows} rows of the batch, each padded to {tokens} tokens.",
                        id="notes.fills_batch", rows=BATCH, tokens=TOKENS)]
        return Prepared(texts=texts, args=batch, tokens={"src": src_tokens, "tgt": tgt_tokens},
                        unknown=src.unknown + tgt.unknown, notes=notes)

    def step_decoder(self, prepared: Prepared, use_cache: bool = True):
        raise InputError("The notes preset shows the notes' shapes in one pass; generate with the demo model.",
                         id="notes.no_generation")


def _padded(ids: list[int], tokens: list[str], label: str) -> tuple[list[int], list[str]]:
    """`ids` and their words filled up to TOKENS with <pad>; InputError when there are more."""
    if len(ids) > TOKENS:
        raise InputError("The {label} has {count} tokens; the notes preset takes at most {most}.", id="notes.too_long",
                         label=label, count=len(ids), most=TOKENS)
    fill = TOKENS - len(ids)
    return ids + [PAD] * fill, tokens + [SPECIALS[PAD]] * fill


def load_notes(spec: str, device: torch.device, dtype: str | torch.dtype) -> NotesAdapter:
    """The `notes` preset: a random reference model at d_model 512 with 8 heads (fixed seed)."""
    model, src_vocab, tgt_vocab = random_model(seed=0, **CONFIG)
    dev = device if isinstance(device, torch.device) else resolve_device(device)
    return NotesAdapter(place(spec, model, src_vocab, tgt_vocab, dev, resolve_dtype(dtype)))
