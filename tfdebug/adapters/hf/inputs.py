"""Texts to a Hugging Face model's inputs the way transformers prepares them: the tokenizer's own call.

    tokenizer(text, return_tensors="pt")                        # one text
    tokenizer(text, text_pair, return_tensors="pt")             # a sentence pair (encoders)
    tokenizer([a, b], padding=True, return_tensors="pt")        # a batch, padded on the tokenizer's side
    tokenizer(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True),
              add_special_tokens=False, return_tensors="pt")    # a chat turn, as apply_chat_template does

The call uses the tokenizer's own settings (special tokens, `token_type_ids`, padding side); a
padding or truncation that `tokenizer.json` fixes is not applied, exactly as transformers
does not apply it without `padding=`/`truncation=`. Every tensor the call returns that the
model's forward takes (`input_ids`, `attention_mask`, `token_type_ids`) reaches the model (a mask of
ones, which masks nothing, as no mask: transformers skips it too).
A text longer than the tokenizer's declared maximum length is cut to it with
`truncation=True, max_length=N`, and a note says so.

`check_inputs` compares what a pass was given with an encoding made independently (transformers'
`AutoTokenizer` of the same folder) and names the first position that differs.
"""

from __future__ import annotations

import inspect
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Mapping

import torch
from torch import Tensor

from tfdebug.core.errors import InputError
from tfdebug.core.foreign import foreign_call
from tfdebug.core.phrases import Phrase

# transformers' "no limit" model_max_length is 1e30: only a limit below this is the tokenizer's own.
_NO_LIMIT = 1 << 40
#: wall-clock seconds a chat template may take to render one turn (real templates take milliseconds)
CHAT_TEMPLATE_SECONDS = 5.0
#: characters a rendered chat prompt may have per token of the model's context (no token of a real vocabulary is
#: longer), and in all (the longest text a snapshot keeps): a longer prompt is refused before it is tokenized
CHAT_CHARS_PER_TOKEN = 16
MAX_CHAT_CHARS = 8_000_000


def tokenizing() -> AbstractContextManager:
    """Around a tokenizer's call on a user's text: a failure inside it (a pre-tokenizer regex that backtracks
    until the Rust engine panics at its retry limit, a template that raises) is one InputError sentence."""
    return foreign_call(InputError, "The tokenizer failed on this text: {reason}. Try a shorter or simpler text.",
                        id="hf.tokenize_failed")


def hf_tokenizer(tokenizer: Any):
    """A transformers tokenizer for `tokenizer`: itself when it is one, else a `tokenizers.Tokenizer`
    wrapped as transformers wraps a tokenizer.json (`PreTrainedTokenizerFast(tokenizer_object=…)`); None
    for none (a model run from prepared ids only, as the bench runs one)."""
    if tokenizer is None:
        return None
    if callable(tokenizer) and hasattr(tokenizer, "apply_chat_template"):
        return tokenizer
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_object=tokenizer)


def declared_max_length(tokenizer: Any, raw: Any = None) -> int | None:
    """The longest input the tokenizer declares: tokenizer.json's truncation length (read from `raw`, the
    `tokenizers.Tokenizer`, before any call resets it), else tokenizer_config.json's `model_max_length`."""
    backend = raw if raw is not None else getattr(tokenizer, "backend_tokenizer", None)
    truncation = getattr(backend, "truncation", None)
    if truncation and truncation.get("max_length"):
        return int(truncation["max_length"])
    most = getattr(tokenizer, "model_max_length", None)
    return int(most) if isinstance(most, int) and 0 < most < _NO_LIMIT else None


@dataclass(frozen=True)
class TokenizerCall:
    """One call of the tokenizer, as data: what tfdebug ran and what the reference reruns independently."""

    texts: tuple[str, ...]
    #: the second text of each pair (encoders' `text_pair`), or None
    pairs: tuple[str, ...] | None = None
    #: the texts are a user's chat turn, rendered by the tokenizer's chat template first
    chat: bool = False
    #: the tokenizer adds its special tokens ([CLS] … [SEP], <bos> …)
    special: bool = True
    #: `truncation=True, max_length=N` (None: no truncation)
    max_length: int | None = None
    #: the model's context in tokens, which bounds a rendered chat prompt (None: MAX_CHAT_CHARS alone)
    context: int | None = None

    def kwargs(self) -> dict:
        """The keyword arguments of the call besides the texts."""
        out: dict = {"return_tensors": "pt", "add_special_tokens": self.special and not self.chat}
        if len(self.texts) > 1:
            out["padding"] = True
        if self.max_length is not None:
            out.update(truncation=True, max_length=self.max_length)
        return out

    def run(self, tokenizer: Any, **extra):
        """The tokenizer's BatchEncoding for these texts."""
        with tokenizing():
            texts = [render_chat(tokenizer, t, self.context) for t in self.texts] if self.chat else list(self.texts)
            first = texts if len(texts) > 1 else texts[0]
            pairs = None if self.pairs is None else (list(self.pairs) if len(self.pairs) > 1 else self.pairs[0])
            return tokenizer(first, pairs, **self.kwargs(), **extra)

    def describe(self) -> str:
        """The call as Python, for a verification line."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs().items() if k != "return_tensors")
        chat = "apply_chat_template(…, add_generation_prompt=True) then " if self.chat else ""
        return f"{chat}tokenizer(text{', text_pair' if self.pairs else ''}, {args})"


def chat_limit(context: int | None) -> int:
    """The most characters a rendered chat prompt may have for a model of `context` tokens."""
    return MAX_CHAT_CHARS if not context else min(MAX_CHAT_CHARS, context * CHAT_CHARS_PER_TOKEN)


def template_limited() -> AbstractContextManager:
    """Around anything that renders a chat template: at most CHAT_TEMPLATE_SECONDS, then one InputError sentence
    (the process goes on; `core.deadline`)."""
    from tfdebug.core.deadline import time_limited

    return time_limited(CHAT_TEMPLATE_SECONDS, lambda: InputError(
        "The chat template ran longer than {seconds} s on this text; tfdebug stopped it (a template that loops "
        "for ever?).", id="hf.chat_template_slow", seconds=f"{CHAT_TEMPLATE_SECONDS:g}"))


def render_chat(tokenizer: Any, text: str, context: int | None = None) -> str:
    """`text` as one user turn in the tokenizer's chat template, followed by the assistant's generation prompt:
    rendered within CHAT_TEMPLATE_SECONDS, and refused before anything tokenizes it when it is longer than a
    model of `context` tokens can read (`chat_limit`)."""
    if not getattr(tokenizer, "chat_template", None):
        raise InputError("This model's tokenizer has no chat template, so the text cannot be sent as a chat turn.",
                         id="hf.no_chat_template")
    with foreign_call(InputError, "The chat template failed on this text: {reason}.", id="hf.chat_template_failed"), \
            template_limited():
        rendered = tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False,
                                                 add_generation_prompt=True)
    most = chat_limit(context)
    if not isinstance(rendered, str) or len(rendered) > most:
        raise InputError("The chat template made a prompt of {n} characters from this text; a model of {context} "
                         "tokens reads at most {most}.", id="hf.chat_template_long",
                         n=f"{len(rendered):,}" if isinstance(rendered, str) else "?",
                         context=f"{context:,}" if context else "any", most=f"{most:,}")
    return rendered


def reference_encoding(tokenizer: Any, call: TokenizerCall):
    """What `tokenizer` makes of the call's texts by transformers' documented route, apart from tfdebug's:
    `tokenizer(text, text_pair, **kwargs)`, or for a chat turn `apply_chat_template(…, tokenize=True)`."""
    kwargs = call.kwargs()
    if call.chat:
        render_chat(tokenizer, call.texts[0], call.context)  # bounded first: the same template renders below
    with tokenizing(), template_limited():
        if call.chat:
            kwargs.pop("add_special_tokens")
            return tokenizer.apply_chat_template([{"role": "user", "content": call.texts[0]}],
                                                 add_generation_prompt=True, tokenize=True, return_dict=True, **kwargs)
        first = list(call.texts) if len(call.texts) > 1 else call.texts[0]
        pairs = None if call.pairs is None else (list(call.pairs) if len(call.pairs) > 1 else call.pairs[0])
        return tokenizer(first, pairs, **kwargs)


def model_inputs(model: Any, encoding: Mapping[str, Any]) -> dict[str, Tensor]:
    """The tensors of `encoding` the model's forward takes (what `model(**tokenizer(text))` passes); an
    attention mask of ones is left out, as transformers leaves it out (a mask with padding always stays)."""
    params = inspect.signature(model.forward).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    out = {k: v for k, v in encoding.items()
           if isinstance(v, Tensor) and k != "offset_mapping" and (k in params or takes_any and k == "input_ids")}
    mask = out.get("attention_mask")
    if mask is not None and bool(mask.all()):
        # A mask of ones masks nothing: transformers reads it as no mask, but only by looking at its values,
        # which a plan made on fake tensors cannot do (it would list mask stages the pass never runs).
        del out["attention_mask"]
    return out


def unknown_words(tokenizer: Any, call: TokenizerCall, encoding) -> list[str]:
    """The typed words the tokenizer read as its unknown token (from the call's offsets; a chat turn's
    offsets are in the rendered template, so it names none)."""
    unk_id = getattr(tokenizer, "unk_token_id", None)
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if unk_id is None and getattr(getattr(backend, "model", None), "unk_token", None):
        unk_id = backend.token_to_id(backend.model.unk_token)  # a bare tokenizer.json names it in its model
    offsets = encoding.get("offset_mapping")
    if unk_id is None or offsets is None or call.chat:
        return []
    words = []
    for row, ids in enumerate(encoding["input_ids"].tolist()):
        sequences = encoding.sequence_ids(row)
        for i, (start, end), sequence in zip(ids, offsets[row].tolist(), sequences):
            if i == unk_id and end > start and sequence is not None:
                words.append((call.pairs if sequence == 1 else call.texts)[row][start:end])
    return list(dict.fromkeys(words))


def check_inputs(given: Mapping[str, Tensor], reference: Mapping[str, Tensor], what: str) -> str:
    """"" when the tensors a pass was given equal `reference` (an independent tokenizer's encoding), else one
    sentence naming the first input and position that differ. A missing mask counts as all ones (what the
    model assumes), so leaving out a mask of ones is no difference; leaving out one with padding is."""
    for name in ("input_ids", "attention_mask", "token_type_ids"):
        expected = reference.get(name)
        if expected is None:
            continue
        seen = given.get(name)
        if seen is None:
            if name == "input_ids" or not bool((expected == (1 if name == "attention_mask" else 0)).all()):
                return Phrase("The model was given no {name}, but {what} makes one (first position that needs it: "
                              "{position}).", id="hf.input_missing", name=name, what=what,
                              position=_first_position(expected != (1 if name == "attention_mask" else 0)))
            continue
        seen, expected = seen.detach().cpu().long(), expected.detach().cpu().long()
        if seen.shape != expected.shape:
            return Phrase("The model was given {name} of shape {shape}, but {what} makes shape {expected}; the "
                          "first position that differs is {position}.", id="hf.input_shape", name=name,
                          shape=tuple(seen.shape), what=what, expected=tuple(expected.shape),
                          position=_first_shape_difference(seen, expected))
        if not torch.equal(seen, expected):
            differs = seen != expected
            where = _first_position(differs)
            index = tuple(int(i) for i in differs.nonzero()[0])
            return Phrase("The model was given {name} {value} at {position}, but {what} makes {expected}.",
                          id="hf.input_differs", name=name, value=int(seen[index]), position=where, what=what,
                          expected=int(expected[index]))
    return ""


def _first_position(differs: Tensor) -> Phrase:
    index = [int(i) for i in differs.nonzero()[0]] if bool(differs.any()) else [0] * differs.dim()
    if differs.dim() > 1 and differs.shape[0] > 1:
        return Phrase("row {row}, position {i}", id="hf.row_position", row=index[0], i=index[-1])
    return Phrase("position {i}", id="hf.position", i=index[-1])


def _first_shape_difference(seen: Tensor, expected: Tensor) -> Phrase:
    rows = min(seen.shape[0], expected.shape[0])
    length = min(seen.shape[-1], expected.shape[-1])
    differs = seen[:rows, :length] != expected[:rows, :length]
    return _first_position(differs) if bool(differs.any()) else Phrase("position {i}", id="hf.position", i=length)
