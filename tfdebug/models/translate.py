"""Greedy decoding with the reference model: read the source once, emit the likeliest word each step.

No KV cache: each step reruns the decoder over the whole prefix. The demo sentences are
a dozen words long, so this stays fast and keeps the model code exactly as it is taught.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import Tensor

from tfdebug.core.errors import EmptyInputError
from tfdebug.models.transformer import Transformer
from tfdebug.models.vocab import BOS, EOS, PAD, Vocab


@dataclass(frozen=True)
class Translation:
    """A greedy translation: its words, the source words the model read, and the unknown ones."""

    tokens: list[str]
    src_tokens: list[str]
    unknown: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """Chinese words joined by spaces, as the corpus writes them."""
        return " ".join(self.tokens)


def pad_batch(sequences: list[list[int]], device=None) -> Tensor:
    """(B, T) tensor of id lists padded on the right with <pad>."""
    width = max(len(s) for s in sequences)
    out = torch.full((len(sequences), width), PAD, dtype=torch.long, device=device)
    for row, ids in enumerate(sequences):
        out[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
    return out


@torch.no_grad()
def greedy_ids(model: Transformer, src: Tensor, max_len: int | None = None) -> list[list[int]]:
    """Greedy target ids (without <bos> and <eos>) for each row of `src` (B, Ts), padded with <pad>.

    Stops when every row has produced <eos> or the target reaches `max_len` tokens
    (the model's limit by default).
    """
    limit = min(max_len or model.args.max_len, model.args.max_len)
    batch = src.shape[0]
    tgt = torch.full((batch, 1), BOS, dtype=torch.long, device=src.device)  # (B, 1)
    done = torch.zeros(batch, dtype=torch.bool, device=src.device)
    while tgt.shape[1] < limit and not bool(done.all()):
        logits = model(src, tgt)[:, -1].float()  # (B, vocab)
        # <pad> and <bos> are never words of a translation; a <pad> would also mask itself out.
        logits[:, PAD] = float("-inf")
        logits[:, BOS] = float("-inf")
        step = logits.argmax(dim=-1)  # (B,)
        # Rows already finished keep emitting <eos>, which the decode below drops.
        step = torch.where(done, torch.full_like(step, EOS), step)
        done |= step == EOS
        tgt = torch.cat([tgt, step[:, None]], dim=1)  # (B, T + 1)
    out = []
    for row in tgt[:, 1:].tolist():
        out.append(row[: row.index(EOS)] if EOS in row else row)
    return out


def translate_batch(model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab,
                    sentences: list[str], batch_size: int = 256, max_len: int | None = None) -> list[list[str]]:
    """Greedy translations (lists of Chinese words) of many English sentences, each at most `max_len` - 1 words."""
    device = next(model.parameters()).device
    results: list[list[str]] = []
    for start in range(0, len(sentences), batch_size):
        chunk = [src_vocab.encode(s).ids for s in sentences[start: start + batch_size]]
        if any(not ids for ids in chunk):
            raise EmptyInputError("A source sentence is empty: type at least one word.", id="input.empty_sentence")
        ids = greedy_ids(model, pad_batch(chunk, device), max_len)
        results.extend(tgt_vocab.decode(row) for row in ids)
    return results


def translate(loaded, text: str, max_len: int | None = None) -> Translation:
    """The greedy translation of one sentence by a LoadedModel; unknown words become <unk>."""
    prepared = loaded.prepare(text)
    ids = greedy_ids(loaded.model, prepared.src, max_len)[0]
    return Translation(tokens=loaded.tgt_vocab.decode(ids), src_tokens=list(prepared.src_tokens),
                       unknown=list(prepared.unknown))
