"""Generation, one token per step: a `StepDecoder` feeds tokens to a model, `generate` chooses the next ones.

Step 0 feeds the prompt (for the translator: <bos> and any target prefix, after the
encoder has read the source); every later step feeds the one token chosen at the step
before. With a KV cache a step runs the decoder over its new token only; without one
it reruns the whole sequence (what the cache saves, and the reference its logits are
checked against).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import nullcontext
from typing import Callable

import torch
from torch import Tensor

from tfdebug.models.sampling import Choice, DecodingSettings, choose, new_generator
from tfdebug.models.transformer import DecoderCache, Memory, Transformer
from tfdebug.models.vocab import BOS, EOS, PAD, Vocab


class StepDecoder(ABC):
    """One generation by one model: feed tokens, read the logits of the next one.

    `stream` names the token stream that grows (the translator's 'tgt', a language
    model's 'prompt'); `prompt_ids` are what step 0 feeds; `capacity` is the most
    tokens that stream may hold; `banned` ids are never chosen.
    """

    stream: str = "tgt"
    eos_id: int | None = None
    banned: tuple[int, ...] = ()
    prompt_ids: list[int]
    capacity: int

    @abstractmethod
    def feed(self, ids: list[int]) -> Tensor:
        """Run the model on the next tokens `ids`; the logits (vocab,) of the token after the last of them."""

    @property
    @abstractmethod
    def fed(self) -> int:
        """How many tokens of the stream the model has read so far."""

    @abstractmethod
    def token(self, token_id: int) -> str:
        """The string of a token id."""

    def expect(self, tokens: int) -> None:
        """Told before the first feed: the stream will hold at most `tokens` tokens (a decoder that keeps a cache
        may make room for them at once). Here nothing."""

    def running(self):
        """What stays set up while a whole generation runs (a context manager): nothing here; a decoder whose
        every feed would set up the same things (hooks, library settings) sets them up once, here."""
        return nullcontext()

    def decode(self, ids: list[int]) -> str:
        """The text of generated token ids: here the tokens, one space apart (a word-level vocabulary); a
        model with a subword tokenizer writes them with its tokenizer's own decode."""
        return " ".join(self.token(i) for i in ids)


def generate(decoder: StepDecoder, settings: DecodingSettings,
             on_step: Callable[[int, int, int], None] | None = None,
             on_choice: Callable[[Choice], None] | None = None) -> list[Choice]:
    """Choose up to `settings.max_new_tokens` tokens, one per step; stops at <eos> or a full stream.

    `on_step(t, start, count)` runs before step t feeds its `count` tokens at stream
    positions start … start + count − 1; `on_choice(choice)` after its token is chosen
    (the generation session names stages and grows the token list there).
    """
    generator = new_generator(settings)
    choices: list[Choice] = []
    ids = list(decoder.prompt_ids)
    decoder.expect(min(decoder.capacity, decoder.fed + len(ids) + settings.max_new_tokens - 1))  # the last isn't fed
    with decoder.running():
        for step in range(settings.max_new_tokens):
            if on_step is not None:
                on_step(step, decoder.fed, len(ids))
            logits = decoder.feed(ids)  # (V,)
            choice = choose(logits, settings, generator, step, decoder.banned)
            choices.append(choice)
            if on_choice is not None:
                on_choice(choice)
            if settings.stop_at_eos and choice.id == decoder.eos_id:
                break
            if decoder.fed + 1 >= decoder.capacity:  # the stream is full with this token: nothing more fits
                break
            ids = [choice.id]
    return choices


class ReferenceDecoder(StepDecoder):
    """The reference translator generating a translation of `src` (1, Ts) after `prompt_ids` (<bos> + prefix)."""

    stream = "tgt"
    eos_id = EOS
    # <pad> and <bos> are never words of a translation (as in `translate`).
    banned = (PAD, BOS)

    def __init__(self, model: Transformer, src: Tensor, prompt_ids: list[int], vocab: Vocab,
                 use_cache: bool = True):
        self.model = model
        self.src = src  # (1, Ts)
        self.prompt_ids = list(prompt_ids)
        self.vocab = vocab
        self.use_cache = use_cache
        self.capacity = model.args.max_len
        self.memory: Memory | None = None
        self.cache = DecoderCache(model.args.n_layer) if use_cache else None
        self._ids: list[int] = []

    @property
    def fed(self) -> int:
        return len(self._ids)

    def feed(self, ids: list[int]) -> Tensor:
        self._ids.extend(ids)
        device = self.src.device
        if not self.use_cache:
            tgt = torch.tensor([self._ids], dtype=torch.long, device=device)  # (1, T): everything so far
            return self.model(self.src, tgt)[0, -1]  # (V,)
        if self.memory is None:
            self.memory = self.model.encode(self.src)  # the encoder runs once, at step 0
        new = torch.tensor([ids], dtype=torch.long, device=device)  # (1, T_new)
        return self.model.decode(new, self.memory, self.cache)[0, -1]  # (V,)

    def token(self, token_id: int) -> str:
        tokens = self.vocab.tokens
        return tokens[token_id] if 0 <= token_id < len(tokens) else "<unk>"


def text_of(decoder: StepDecoder, choices: list[Choice]) -> list[str]:
    """The generated tokens as strings, without a final <eos>."""
    ids = [c.id for c in choices]
    if ids and ids[-1] == decoder.eos_id:
        ids = ids[:-1]
    return [decoder.token(i) for i in ids]
