"""Loading a model with its vocabularies, and turning sentences into its inputs.

Model names: "random" (a small randomly initialised reference model with the notes'
words as vocabulary), "demo" (the bundled trained translator), or a folder holding
config.json, model.safetensors, vocab.en.txt and vocab.zh.txt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor

from tfdebug.core.devices import resolve_device, resolve_dtype
from tfdebug.core.errors import ConfigError, EmptyInputError, ModelLoadError
from tfdebug.core.phrases import os_reason
from tfdebug.models.bundled import (CONFIG_FILE, SRC_VOCAB_FILE, TGT_VOCAB_FILE, WEIGHTS_FILE,
                                    demo_available, demo_dir)
from tfdebug.models.config import ModelArgs, load_config
from tfdebug.models.transformer import Transformer
from tfdebug.models.vocab import BOS, Vocab, builtin_vocabs

MODEL_NAMES = ("demo", "random")


@dataclass(frozen=True)
class PreparedInput:
    """A sentence pair as model inputs: ids on the model's device plus the words behind them.

    The target is BOS-prefixed: the decoder reads <bos> and the target prefix.
    `unknown` lists the words that were not in the vocabularies (they became <unk>).
    """

    src: Tensor
    tgt: Tensor
    src_tokens: list[str]
    tgt_tokens: list[str]
    unknown: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> dict[str, list[str]]:
        return {"src": list(self.src_tokens), "tgt": list(self.tgt_tokens)}


@dataclass
class LoadedModel:
    """A reference model in eval mode on its device, with its source and target vocabularies."""

    name: str
    model: Transformer
    src_vocab: Vocab
    tgt_vocab: Vocab
    device: torch.device
    dtype: torch.dtype

    @property
    def args(self) -> ModelArgs:
        return self.model.args

    def prepare(self, src_text: str, tgt_text: str = "") -> PreparedInput:
        """Encode a source sentence and a target prefix; EmptyInputError when the source has no words."""
        src = self.src_vocab.encode(src_text)
        if not src.ids:
            raise EmptyInputError("The source sentence is empty: type at least one word.", id="input.source_empty")
        tgt = self.tgt_vocab.encode(tgt_text)
        return PreparedInput(
            src=torch.tensor([src.ids], dtype=torch.long, device=self.device),
            tgt=torch.tensor([[BOS] + tgt.ids], dtype=torch.long, device=self.device),
            src_tokens=src.tokens,
            tgt_tokens=["<bos>"] + tgt.tokens,
            unknown=src.unknown + tgt.unknown,
        )

    def forward(self, prepared: PreparedInput) -> Tensor:
        return self.model(prepared.src, prepared.tgt)


def random_model(seed: int = 0, **overrides) -> tuple[Transformer, Vocab, Vocab]:
    """A small randomly initialised reference model (fixed seed) with the built-in vocabularies."""
    src_vocab, tgt_vocab = builtin_vocabs()
    config = dict(n_embd=64, n_heads=4, n_layer=2, max_seq_len=64, vocab_size=len(tgt_vocab),
                  src_vocab_size=len(src_vocab))
    config.update(overrides)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Transformer(ModelArgs(**config))
    return model, src_vocab, tgt_vocab


def _load_dir(folder: Path) -> tuple[Transformer, Vocab, Vocab]:
    folder = Path(folder)
    for name in (CONFIG_FILE, WEIGHTS_FILE, SRC_VOCAB_FILE, TGT_VOCAB_FILE):
        try:
            present = (folder / name).is_file()
        except OSError as exc:  # a folder without read or search permission
            raise ModelLoadError("The model folder {folder} cannot be read: {reason}.", id="model.folder_unreadable",
                                 folder=str(folder), reason=os_reason(exc)) from None
        if not present:
            raise ModelLoadError("The model folder {folder} has no {name}.", id="model.missing_file",
                                 folder=str(folder), name=name)
    try:
        args = load_config(folder / CONFIG_FILE)
    except (OSError, ValueError, TypeError) as exc:
        raise ModelLoadError("Cannot read the model config in {folder}: {reason}.", id="model.config_unreadable",
                             folder=str(folder), reason=str(exc)) from exc
    src_vocab = Vocab.load(folder / SRC_VOCAB_FILE, "en")
    tgt_vocab = Vocab.load(folder / TGT_VOCAB_FILE, "zh")
    if len(src_vocab) != args.source_vocab_size or len(tgt_vocab) != args.vocab_size:
        raise ModelLoadError("The vocabularies in {folder} do not match the model's vocabulary sizes.",
                             id="model.vocab_size_mismatch", folder=str(folder))
    from safetensors.torch import load_file
    try:
        state = load_file(str(folder / WEIGHTS_FILE))
    except Exception as exc:  # safetensors raises its own error types
        raise ModelLoadError("Cannot read the weights in {folder}: {reason}.", id="model.weights_unreadable",
                             folder=str(folder), reason=str(exc)) from exc
    model = Transformer(args)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        raise ModelLoadError("The weights in {folder} do not fit the model config: {reason}.",
                             id="model.weights_mismatch", folder=str(folder), reason=str(exc)) from exc
    return model, src_vocab, tgt_vocab


def load_model(name: str = "demo", device: str | torch.device | None = "cpu",
               dtype: str | torch.dtype = "float32") -> LoadedModel:
    """Load "demo", "random" or a model folder onto a device, in eval mode."""
    dev = device if isinstance(device, torch.device) else resolve_device(device)
    dt = resolve_dtype(dtype)
    if name == "random":
        model, src_vocab, tgt_vocab = random_model()
    elif name == "demo":
        if not demo_available():
            raise ModelLoadError("The demo model is not bundled with this installation; use --model random.",
                                 id="model.no_demo")
        model, src_vocab, tgt_vocab = _load_dir(demo_dir())
    elif Path(name).is_dir():
        model, src_vocab, tgt_vocab = _load_dir(Path(name))
    else:
        raise ModelLoadError("Unknown model '{name}': use demo, random or a model folder.", id="model.unknown",
                             name=name)
    return place(name, model, src_vocab, tgt_vocab, dev, dt)


def place(name: str, model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab, device: torch.device,
          dtype: torch.dtype) -> LoadedModel:
    """A built model moved to `device` as `dtype`, in eval mode, with its vocabularies."""
    try:
        model = model.to(device=device, dtype=dtype).eval()
    except (RuntimeError, TypeError) as exc:
        raise ConfigError("Cannot put the model on {device} as {dtype}: {reason}.", id="model.cannot_place",
                          device=str(device), dtype=str(dtype), reason=str(exc)) from exc
    return LoadedModel(name=name, model=model, src_vocab=src_vocab, tgt_vocab=tgt_vocab, device=device, dtype=dtype)


def available_models() -> list[str]:
    """Reference-model names usable here: demo only when its files are bundled.

    (Every kind of model, adapters included: `tfdebug.adapters.available_models`.)
    """
    return [n for n in MODEL_NAMES if n != "demo" or demo_available()]


def default_model_name() -> str:
    return available_models()[0]

