"""Generation with a Hugging Face model through tfdebug's loop (`tfdebug.models.generate`).

`HFDecoder` feeds a model one step at a time with the model's own cache object,
transformers' `DynamicCache` (`EncoderDecoderCache` of two for T5-style models), whose plain layers keep their
rows in one growing buffer (`kv_rows`): the attention function then receives the cache after this step's update,
which the tapped attention shows as `cache_k`/`cache_v`. A generation runs inside `adapter.tapped()` (set up
once for all its steps by `running()`, not once per token), so hooks exist only while the model
runs. Without a cache each step reruns the whole sequence, as the reference decoder does.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager, nullcontext
from typing import Any, Iterator

import torch
from torch import Tensor

from tfdebug.adapters.base import Prepared
from tfdebug.adapters.hf.load import quiet_transformers
from tfdebug.models.generate import StepDecoder

# The largest number of positions when a config names none: enough for any debugging session.
DEFAULT_CAPACITY = 4096


class HFDecoder(StepDecoder):
    """One generation by a Hugging Face model: decoder-only after its prompt (a vision-language model's with its
    picture, read at step 0), encoder–decoder after `decoder_start_token_id` (and any typed decoder input), the
    encoder run once at step 0 (on token ids, or on a speech model's audio features)."""

    def __init__(self, adapter: Any, prepared: Prepared, use_cache: bool = True):
        from transformers import DynamicCache, EncoderDecoderCache

        self.adapter = adapter
        self.model = adapter.model
        self.use_cache = use_cache
        config = self.model.config
        kwargs = prepared.kwargs
        self.encoder_decoder = "decoder_input_ids" in kwargs
        # the text stream that grows (a vision-language model's prompt, after its picture field)
        self.stream = "tgt" if self.encoder_decoder else next(f.key for f in adapter.inputs if f.kind == "text")
        ids = kwargs["decoder_input_ids"] if self.encoder_decoder else kwargs["input_ids"]
        self.prompt_ids = ids[0].tolist()
        # what the encoder reads: token ids, or a speech model's features (Whisper's input_features)
        self.src = {k: kwargs[k] for k in ("input_ids", "input_features") if k in kwargs} if self.encoder_decoder \
            else None
        # a vision-language model's picture: read with the prompt (and with every rerun of it without a cache)
        self.pixels = {"pixel_values": kwargs["pixel_values"]} if "pixel_values" in kwargs and \
            not self.encoder_decoder else {}
        text = config.get_text_config(decoder=True) if hasattr(config, "get_text_config") else config
        eos = getattr(config, "eos_token_id", None)
        eos = getattr(text, "eos_token_id", None) if eos is None else eos
        self.eos_id = eos[0] if isinstance(eos, (list, tuple)) else eos
        self.capacity = next((n for n in (getattr(c, key, None) for c in (config, text)
                                          for key in ("n_positions", "max_position_embeddings", "max_target_positions"))
                              if n), DEFAULT_CAPACITY)
        self._ids: list[int] = []
        self._running = False  # inside running(): the hooks are in, transformers quiet
        self._encoder_outputs = None
        self.cache = None
        if use_cache:
            self.cache = (EncoderDecoderCache(DynamicCache(config=config), DynamicCache(config=config))
                          if self.encoder_decoder else DynamicCache(config=config))

    def expect(self, tokens: int) -> None:
        """Room in the cache for `tokens` tokens, every step's keys and values a view of it (`kv_rows`), where no
        token has been fed yet."""
        from tfdebug.adapters.hf.kv_rows import share_rows

        if self.cache is not None and not self._ids:
            share_rows(self.cache, tokens)

    @property
    def fed(self) -> int:
        return len(self._ids)

    @contextmanager
    def running(self) -> Iterator[None]:
        """The hooks and the tapped attention installed, and transformers quiet, for every step at once."""
        with ExitStack() as stack:
            stack.enter_context(quiet_transformers())
            stack.enter_context(self.adapter.tapped(cached=self.use_cache))
            self._running = True
            try:
                yield
            finally:
                self._running = False

    def feed(self, ids: list[int]) -> Tensor:
        pixels = self.pixels if not self._ids or not self.use_cache else {}  # the picture's rows enter once
        self._ids.extend(ids)
        new = torch.tensor([ids if self.use_cache else self._ids], dtype=torch.long,
                           device=self.adapter.device)  # (1, T)
        with nullcontext() if self._running else self.running():
            if not self.encoder_decoder:
                out = self.model(input_ids=new, cache=self.cache, use_cache=self.use_cache, **pixels)
            else:
                if self._encoder_outputs is None:  # the encoder reads the source once, at step 0
                    self._encoder_outputs = self.model.get_encoder()(**self.src)
                out = self.model(encoder_outputs=self._encoder_outputs, decoder_input_ids=new, cache=self.cache,
                                 use_cache=self.use_cache)
        return out.logits[0, -1]  # (V,)

    def token(self, token_id: int) -> str:
        return self.adapter._id_label(token_id)

    def decode(self, ids: list[int]) -> str:
        return self.adapter.decode(ids)
