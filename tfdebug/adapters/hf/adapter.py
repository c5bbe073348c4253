"""Hugging Face Transformers models as adapters: `--model hf:FOLDER`, or `wrap(model, tokenizer)` from Python.

The model stays unmodified. During `forward` only, module hooks (`hf_hooks`) show the
tensors passed between its modules and a registered attention function
(`hf_attention`) computes attention the way eager attention does, one tap per
sub-stage; both are removed in `finally`. Every run is verified: `verify` runs the
unmodified model (its own attention implementation) on the same input and compares.
"""

from __future__ import annotations

import dataclasses
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import torch
from torch import Tensor, nn

from tfdebug.adapters.base import InputField, ModelAdapter, Prepared, Verification
from tfdebug.adapters.hf.checks import Checks
from tfdebug.adapters.hf.inpass import planned
from tfdebug.adapters.hf.inputs import (
    TokenizerCall,
    declared_max_length,
    hf_tokenizer,
    model_inputs,
    unknown_words,
)
from tfdebug.adapters.hf.load import execution_device, load_folder, quiet_transformers, require_transformers
from tfdebug.core.batches import check_batch_rows
from tfdebug.core.devices import resolve_dtype
from tfdebug.core.errors import InputError, TokenOutOfRangeError
from tfdebug.core.phrases import Phrase
from tfdebug.core.readout import Readout

PREFIX = "hf:"
_PRESETS = {
    # The bundled tiny model continues "English = " with the Chinese translation.
    "prompt": ({"prompt": "I love you = 我 爱 你"}, {"prompt": "Apple is delicious = 苹果 很 好吃"},
               {"prompt": "I ate an apple yesterday ="}),
    "text": ({"text": "I love you"},),
    "src": ({"src": "I love you", "tgt": ""},),
}
# A generation starts before the answer, so the model has the translation to write.
_GENERATION_PRESETS = {
    "prompt": ({"prompt": "I love you ="}, {"prompt": "Apple is delicious ="}, {"prompt": "I ate an apple yesterday ="}),
}


class TappedModel(nn.Module):
    """The Hugging Face model beside its taps (what the Recorder walks); the model itself is not changed."""

    def __init__(self, model: nn.Module, taps: Mapping[str, nn.Module]):
        super().__init__()
        self.model = model
        # ModuleDict keys may not hold dots: stage names use '|' there.
        self.taps = nn.ModuleDict({name.replace(".", "|"): tap for name, tap in taps.items()})


class HFAdapter(Checks, ModelAdapter):
    """A Hugging Face model of a supported family with every stage tapped; verified on every run."""

    #: the attention kernel passes run with (hf_attention): tfdebug's tapped eager, or transformers' own
    attention = "eager"

    kind = "hf"
    checks_in_pass = True

    def __init__(self, model: nn.Module, tokenizer: Any, name: str = "hf", folder: Path | None = None):
        require_transformers()
        self.model = model.eval()
        # The tokenizer as transformers calls it; the folder it came from, for the reference check.
        self.tokenizer, self.folder = hf_tokenizer(tokenizer), folder
        self.max_length = declared_max_length(self.tokenizer)  # before a call resets tokenizer.json's truncation
        self._offsets = hasattr(self.tokenizer, "backend_tokenizer")  # a fast tokenizer names unknown words
        self.name = name
        self.plan = self._plan(model)
        self.module = TappedModel(model, self.plan.taps)
        # Where the inputs go: the embedding's execution device (a device_map may offload its weights).
        self.device, self.dtype = execution_device(model.get_input_embeddings()), next(model.parameters()).dtype
        streams = self.plan.streams
        self.encoder_decoder = streams == ("src", "tgt")
        if self.encoder_decoder:
            self.inputs = (InputField("src", "Encoder input", "text for the encoder"),
                           InputField("tgt", "Decoder input", "text the decoder has produced so far", required=False))
            self.layer_titles = {"enc": "Encoder layer", "dec": "Decoder layer"}
            self.stack_titles = {"enc": "Encoder", "dec": "Decoder"}
            self.site_titles = {"src": "Encoder embedding", "tgt": "Decoder embedding", "enc": "Encoder norm",
                                "dec": "Decoder norm", "head": "lm_head → logits"}
        elif streams == ("text",):
            self.inputs = (InputField("text", "Text", "a sentence for the encoder"),
                           InputField("text_pair", "Second text", "a second sentence, to read the two as a pair",
                                      required=False))
            self.layer_titles, self.stack_titles = {"enc": "Layer"}, {"enc": "Encoder"}
            self.site_titles = {"tok": "Embeddings", "head": "MLM head → logits"}
        else:
            self.inputs = (InputField("prompt", "Prompt", "text the model continues"),)
            self.layer_titles, self.stack_titles = {"dec": "Block"}, {"dec": "Decoder"}
            self.site_titles = {"tok": "Token embedding", "dec": "Final norm", "head": "lm_head → logits"}
        self.presets = _PRESETS[streams[0]]
        self.generation_presets = _GENERATION_PRESETS.get(streams[0], ())
        self._vocabulary: list[str] | None = None

    def _plan(self, model: nn.Module):
        """The model's taps and hooks (`hf_names.tap_plan`; a speech model probes with its own input)."""
        from tfdebug.adapters.hf.names import tap_plan

        return tap_plan(model)

    @property
    def model_root(self) -> nn.Module:
        return self.model  # every adapter of this Hugging Face model shares its forward lock
    def config(self) -> dict:
        return {"hf_model_type": self.model.config.model_type, "hf_class": type(self.model).__name__,
                **self.model.config.to_diff_dict()}

    def vocabulary(self) -> list[str] | None:
        if self._vocabulary is None:
            size = self.model.config.get_text_config().vocab_size
            self._vocabulary = [self._id_label(i) for i in range(size)]
        return list(self._vocabulary)

    # ----- inputs ------------------------------------------------------------------------
    def _call(self, texts: tuple[str, ...], pairs: tuple[str, ...] | None = None, special: bool = True):
        """The tokenizer's own call on `texts` (hf_inputs): (the call, its encoding with offsets, notes).

        A text longer than the tokenizer's declared maximum is called again with truncation, and a
        note says how long it was."""
        chat = self.chat and special
        call = TokenizerCall(texts, pairs, chat=chat, special=special, context=self.context() if chat else None)
        encoding = call.run(self.tokenizer, return_offsets_mapping=self._offsets)
        length, most, notes = encoding["input_ids"].shape[-1], self.max_length, []
        if most is not None and length > most:
            call = dataclasses.replace(call, max_length=most)
            encoding = call.run(self.tokenizer, return_offsets_mapping=self._offsets)
            notes.append(Phrase("The text is {n} tokens long; the tokenizer keeps its first {most} (its maximum "
                                "length, truncation=True), so the model does not read the rest.",
                                id="hf.truncated", n=length, most=most))
        return call, encoding, notes

    def readout(self) -> Readout:
        """The final norm and output embedding the plan taps (`hf.readout`)."""
        from tfdebug.adapters.hf.readout import readout

        return readout(self.model, self.plan, self.name)

    def stage_module(self, name: str) -> nn.Module | None:
        """The module the plan taps as stage `name`'s output."""
        from tfdebug.adapters.hf.readout import stage_module

        return stage_module(self.model, self.plan, name)

    def use_attention(self, kernel: str) -> None:
        """Run the following passes with transformers' own `kernel` between tapped q/k/v and context."""
        from tfdebug.adapters.hf.kernels import check_kernel

        self.attention = check_kernel(kernel)

    def context(self) -> int | None:
        """The tokens the model reads at most: its position table, else the tokenizer's declared maximum."""
        return context_of(self.model.config.get_text_config()) or self.max_length

    def can_chat(self) -> bool:
        """Whether the tokenizer has a chat template (`--chat`, the window's Chat toggle, apply it)."""
        return bool(getattr(self.tokenizer, "chat_template", None))

    def decode(self, ids: list[int]) -> str:
        """The text of token ids as the tokenizer's own `decode` writes it (special tokens left out)."""
        return self.tokenizer.decode(ids, skip_special_tokens=True)

    def _special_tokens(self) -> list[str]:
        """The tokenizer's special tokens as typed text ('<|endoftext|>', '</s>' …)."""
        tok = getattr(self.tokenizer, "backend_tokenizer", self.tokenizer)
        if hasattr(tok, "get_added_tokens_decoder"):
            return [t.content for t in tok.get_added_tokens_decoder().values() if t.special]
        return list(getattr(self.tokenizer, "all_special_tokens", []))

    def _typed_special(self, texts: Mapping[str, str]) -> list[str]:
        """A sentence per special token typed in `texts`: the tokenizer reads it as that token, not as text."""
        notes = []
        for token in self._special_tokens():
            if token and any(token in text for text in texts.values()):
                notes.append(Phrase("{token} is a special token, not text: the model reads it as that one token.",
                                    id="hf.special_token", token=token))
        return notes

    def _ids(self, ids: list[int]) -> Tensor:
        return torch.tensor([ids], dtype=torch.long, device=self.device)

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        """Tensors as `tokenizer(text, return_tensors="pt")` makes them (hf_inputs), every one the model takes
        passed on; the call itself is kept (`Prepared.options["call"]`) for the check against AutoTokenizer."""
        return self.prepare_batch([texts])

    def prepare_batch(self, rows: Sequence[Mapping[str, str]]) -> Prepared:
        """Several texts as one batch, `tokenizer([a, b], padding=True)`: padded on the tokenizer's side, its
        mask passed on (so the pass has a mask stage). The token axis is labelled by the first row."""
        check_batch_rows(len(rows))  # before anything is tokenized
        rows = [self.check_texts(texts) for texts in rows]
        texts = rows[0]
        if len(rows) > 1 and self.encoder_decoder:
            raise InputError("{name} takes one source sentence at a time.", id="hf.batch_encoder_decoder",
                             name=self.name)
        if len(rows) > 1 and getattr(self.tokenizer, "pad_token", None) is None:
            raise InputError("The tokenizer of {name} has no padding token, so several texts cannot be padded "
                             "into one batch.", id="hf.no_pad_token", name=self.name)
        if self.encoder_decoder:
            call, encoding, notes = self._call((texts["src"],))
            start = self.model.config.decoder_start_token_id
            start = self.model.config.pad_token_id if start is None else start
            tgt = texts["tgt"].strip() and self._call((texts["tgt"],), special=False)[1]["input_ids"][0].tolist()
            kwargs = {**model_inputs(self.model, encoding),
                      "decoder_input_ids": self._ids([start] + list(tgt or [])), "use_cache": False}
            tokens = {"src": self._labels(encoding["input_ids"][0]),
                      "tgt": [self._id_label(i) for i in [start] + list(tgt or [])]}
        else:
            key = self.inputs[0].key
            pairs = tuple(row.get("text_pair", "") for row in rows)
            call, encoding, notes = self._call(tuple(row[key] for row in rows),
                                               pairs if any(p.strip() for p in pairs) else None)
            if not encoding["input_ids"].shape[-1]:
                raise InputError("The {field} gives no tokens: type at least one word.", id="hf.no_tokens",
                                 field=self.inputs[0].label.lower())
            kwargs = model_inputs(self.model, encoding)
            if key == "prompt":
                kwargs["use_cache"] = False
            tokens = {key: self._labels(encoding["input_ids"][0])}
        kwargs = {k: v.to(self.device) if isinstance(v, Tensor) else v for k, v in kwargs.items()}
        _check_length(self.model.config, kwargs)
        self._check_ids(kwargs)
        return Prepared(texts=texts, kwargs=kwargs, tokens=tokens,
                        unknown=unknown_words(self.tokenizer, call, encoding),
                        notes=notes + self._typed_special(texts), options={"call": call})

    def _labels(self, ids: Tensor) -> list[str]:
        return [self._id_label(i) for i in ids.tolist()]

    def _check_ids(self, kwargs: dict) -> None:
        """InputError when the tokenizer gives an id past the model's embedding (another model's tokenizer.json):
        the forward would fail with an IndexError deep inside torch."""
        rows = self.model.get_input_embeddings().num_embeddings
        for name in ("input_ids", "decoder_input_ids"):
            ids = kwargs.get(name)
            bad = [i for i in ids.flatten().tolist() if not 0 <= i < rows] if ids is not None else []
            if bad:
                raise TokenOutOfRangeError(
                    "The tokenizer gives {token} the id {number}, but the model's embedding has only {rows} rows: "
                    "the folder's tokenizer.json does not belong to this model.",
                    id="hf.id_past_vocab", token=repr(self._id_label(bad[0])), number=bad[0], rows=rows)

    def _id_label(self, token_id: int) -> str:
        """The readable string of one token id ('<id 7>' for an id the tokenizer does not know)."""
        tok = getattr(self.tokenizer, "backend_tokenizer", self.tokenizer)
        if hasattr(tok, "id_to_token"):
            token = tok.id_to_token(token_id)
            return f"<id {token_id}>" if token is None else _label(tok.decode([token_id], skip_special_tokens=False),
                                                                      token)
        return _label(self.tokenizer.decode([token_id]), str(self.tokenizer.convert_ids_to_tokens(token_id)))

    # ----- running -----------------------------------------------------------------------
    def forward(self, prepared: Prepared) -> Tensor:
        """The tapped forward: hooks and the tapped attention exist only inside this call.

        The stages the verification checks are kept (by reference) until the next real forward; with the check in
        the pass on (`check_in_pass`) each layer's attention is compared as it runs, and for that check alone
        ("attention") nothing is kept."""
        from tfdebug.adapters.hf.inpass import checking
        from tfdebug.adapters.hf.verify import checked_stages, stages_kept

        kept, fired = {}, {}
        checks = () if self._in_pass == "attention" else checked_stages(self.plan)
        with quiet_transformers(), self.tapped(), stages_kept(self.plan.taps, checks, kept, fired), \
                (checking(self.plan) if self._in_pass else nullcontext()) as found:
            output = primary_output(self.model(**prepared.kwargs))
        # A plan's pass (meta or fake tensors) is not what the next verification checks: the real pass's stay.
        if not planned(output):
            self._kept, self._fired, self._found = kept, fired, found
        return output

    @contextmanager
    def tapped(self, cached: bool = False) -> Iterator[None]:
        """Hooks and the tapped attention installed for the calls inside the block, removed in `finally`.

        `cached`: the calls pass a KV cache (generation): attention shows it as `cache_k`/`cache_v`.
        """
        from tfdebug.adapters.hf.attention import tapped_attention
        from tfdebug.adapters.hf.hooks import hooks_installed
        from tfdebug.adapters.hf.own import own_attention_tapped

        with ExitStack() as stack:
            stack.enter_context(tapped_attention(self.model, self.plan.sites, cached, self.attention))
            stack.enter_context(own_attention_tapped(self.plan.own_sites, cached))
            stack.enter_context(hooks_installed(self.model, self.plan.hooks, self.plan.taps))
            yield

    def step_decoder(self, prepared: Prepared, use_cache: bool = True):
        """Generate after the prompt (or the decoder input, after the encoder), one token per step,
        the model keeping its keys and values in a transformers `DynamicCache`."""
        from tfdebug.adapters.hf.generate import HFDecoder

        if self.inputs[0].key == "text":
            raise InputError("{name} is an encoder only: it has no decoder to generate text with.",
                             id="hf.encoder_only", name=self.name)
        return HFDecoder(self, prepared, use_cache)

    def plain_forward(self, prepared: Prepared) -> Tensor:
        """The unmodified model on the same input (its own attention implementation, no hooks)."""
        return primary_output(self.model(**prepared.kwargs))

    def describe(self) -> str:
        return f"{self.name} ({self.model.config.model_type}) on {self.device} ({str(self.dtype).removeprefix('torch.')})"


def _label(decoded: str, token: str) -> str:
    """A token as a person reads it: its decoded text, or the raw token when decoding alone garbles it."""
    return decoded if decoded and "\ufffd" not in decoded else token


def context_of(config) -> int | None:
    """The model's context in tokens (its position table's length), where its config says it."""
    limit = getattr(config, "n_positions", None) or getattr(config, "max_position_embeddings", None)
    return limit if isinstance(limit, int) and limit > 0 else None


def _check_length(config, kwargs: dict) -> None:
    limit = context_of(config)
    for name in ("input_ids", "decoder_input_ids"):
        if limit and name in kwargs and kwargs[name].shape[1] > limit:
            from tfdebug.core.errors import SequenceTooLongError

            raise SequenceTooLongError("The input is {n} tokens long; this model takes at most {most}.",
                                       id="hf.too_long", n=kwargs[name].shape[1], most=limit)


def primary_output(output: Any) -> Tensor:
    """The tensor a run is judged by: the logits when the model has a head (a two-tower model's similarities),
    else the last hidden state."""
    for key in ("logits", "logits_per_image", "last_hidden_state"):
        value = getattr(output, key, None)
        if isinstance(value, Tensor):
            return value
    return output[0] if isinstance(output, (tuple, list)) else output


def tolerance_for(reference: Tensor) -> float:
    """1e-5 in float32 (relative to the output's largest magnitude when that exceeds 1); looser in half precision."""
    base = {torch.float16: 1e-2, torch.bfloat16: 5e-2, torch.float64: 1e-9}.get(reference.dtype, 1e-5)
    scale = float(reference.detach().abs().max()) if reference.numel() else 1.0
    return base * max(1.0, scale)


def compare(output: Tensor, reference: Tensor, attention_mask: Tensor | None = None) -> Verification:
    """Max |output − reference| over every position that is not padding (`attention_mask` 0)."""
    diff = (output.detach().float() - reference.detach().float().to(output.device)).abs()
    if attention_mask is not None and diff.dim() >= 2:
        keep = attention_mask.to(diff.device).bool()
        keep = keep.reshape(*keep.shape, *([1] * (diff.dim() - keep.dim())))
        diff = torch.where(keep, diff, torch.zeros((), device=diff.device))
    return Verification(max_abs_diff=float(diff.max()) if diff.numel() else 0.0, tolerance=tolerance_for(reference))


def wrap(model: nn.Module, tokenizer: Any, name: str = "hf") -> HFAdapter:
    """An adapter for a Hugging Face model already in memory (eval mode is set; nothing else changes)."""
    return HFAdapter(model, tokenizer, name)


def load(spec: str, device: torch.device, dtype: str | torch.dtype) -> HFAdapter:
    """The registry's loader for `hf:FOLDER`."""
    require_transformers()
    folder = Path(spec[len(PREFIX):] if spec.startswith(PREFIX) else spec).expanduser()
    model, tokenizer = load_folder(folder, device, resolve_dtype(dtype))
    return HFAdapter(model, tokenizer, name=spec, folder=folder)
