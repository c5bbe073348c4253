"""ModelArgs: the reference model's configuration, with the field names of the notes."""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import asdict, dataclass, fields

from tfdebug.core.errors import ConfigError
from tfdebug.core.phrases import os_reason


@dataclass
class ModelArgs:
    """Configuration of the reference encoder–decoder Transformer.

    The first eight fields carry the notes' names. `vocab_size` is the target
    vocabulary (what `lm_head` predicts); `src_vocab_size` is the source vocabulary,
    and when it is None the source shares the target's embedding table, as in the
    notes' single `wte`. `dim` defaults to `n_embd` (the attention output must match
    the residual stream). `block_size` is the positional table's length and defaults
    to `max_seq_len`.
    """

    n_embd: int = 64
    n_heads: int = 4
    dim: int | None = None
    dropout: float = 0.0
    max_seq_len: int = 64
    vocab_size: int = 32
    block_size: int | None = None
    n_layer: int = 2
    src_vocab_size: int | None = None
    hidden_dim: int | None = None
    pad_id: int = 0

    def __post_init__(self):
        _check_types(self)  # before the defaults below do arithmetic with the values
        if self.dim is None:
            self.dim = self.n_embd
        if self.block_size is None:
            self.block_size = self.max_seq_len
        if self.hidden_dim is None:
            self.hidden_dim = 4 * self.n_embd
        self.validate()

    def validate(self) -> None:
        """Raise ConfigError naming the field when the values cannot build a model here.

        Checks types, then ranges, then the memory the parameters and buffers would
        take, all before anything is allocated.
        """
        _check_types(self)
        for name, (low, high) in RANGES.items():
            value = getattr(self, name)
            if value is not None and not low <= value <= high:
                raise ConfigError("{name} must be a whole number from {low} to {high}, not {value}.",
                                  id="config.range", name=name, low=f"{low:,}", high=f"{high:,}", value=_shown(value))
        if self.n_embd % self.n_heads != 0:
            raise ConfigError("n_embd ({n_embd}) must be divisible by n_heads ({n_heads}): "
                              "each head gets n_embd / n_heads features.", id="config.heads",
                              n_embd=self.n_embd, n_heads=self.n_heads)
        if self.dim != self.n_embd:
            raise ConfigError("dim ({dim}) must equal n_embd ({n_embd}): W^O writes back into the residual stream.",
                              id="config.dim", dim=self.dim, n_embd=self.n_embd)
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigError("dropout must be in [0, 1), not {value}.", id="config.dropout_range",
                              value=_shown(self.dropout))
        if self.pad_id >= min(self.vocab_size, self.source_vocab_size):
            raise ConfigError("pad_id ({pad_id}) must be a token id of both vocabularies (below {below}).",
                              id="config.pad_id", pad_id=self.pad_id,
                              below=f"{min(self.vocab_size, self.source_vocab_size):,}")
        parts = self.memory_parts()
        total = sum(parts.values())
        if total > max_model_bytes():
            field = max(parts, key=parts.get)
            raise ConfigError("This config asks for about {size} of parameters and buffers, mostly from {field} = "
                              "{value}; tfdebug builds models up to {most} on this machine.", id="config.memory",
                              size=_bytes(total), field=field, value=f"{getattr(self, field):,}",
                              most=_bytes(max_model_bytes()))

    def memory_parts(self) -> dict[str, int]:
        """Bytes (float32) of the reference model's parameters and buffers, by the field that sizes them.

        Attention and feed-forward weights are counted under n_layer, the causal masks
        (max_seq_len² per decoder layer) under max_seq_len.
        """
        d, layers = self.n_embd, self.n_layer
        norms = 2 * d
        encoder = layers * (4 * d * d + 2 * d * self.hidden_dim + 2 * norms) + norms
        decoder = layers * (8 * d * d + 2 * d * self.hidden_dim + 3 * norms) + norms
        return {name: 4 * n for name, n in {
            "vocab_size": 2 * self.vocab_size * d,  # embedding table and lm_head
            "src_vocab_size": (self.src_vocab_size or 0) * d,
            "block_size": self.block_size * d,  # the positional table
            "max_seq_len": layers * self.max_seq_len ** 2,  # one causal mask per decoder layer
            "n_layer": encoder + decoder,
        }.items()}

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_heads

    @property
    def max_len(self) -> int:
        """The longest sequence the model accepts (mask and positional table both cover it)."""
        return min(self.max_seq_len, self.block_size)

    @property
    def source_vocab_size(self) -> int:
        return self.src_vocab_size if self.src_vocab_size is not None else self.vocab_size

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ModelArgs":
        """A checked ModelArgs from a parsed config; ConfigError names the first bad field."""
        if not isinstance(data, dict):
            raise ConfigError("The model config must be a JSON object of field names and values.", id="config.not_object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError("Unknown model config keys: {keys}.", id="config.unknown_keys",
                              keys=", ".join(_shown(k) for k in unknown[:5]))
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> "ModelArgs":
        """A checked ModelArgs from config.json's text (size and nesting bounded before parsing finishes)."""
        if len(text) > MAX_CONFIG_CHARS:
            raise ConfigError("config.json is {n} characters long; a model config is at most {most}.",
                              id="config.too_long", n=f"{len(text):,}", most=f"{MAX_CONFIG_CHARS:,}")
        try:
            data = json.loads(text)
        except RecursionError:
            raise ConfigError("config.json is nested too deeply to be a model config.", id="config.nested") from None
        except ValueError as exc:
            raise ConfigError("config.json is not valid JSON ({why}).", id="config.json", why=exc) from None
        return cls.from_dict(data)


def load_config(path: str | os.PathLike) -> ModelArgs:
    """Read and check a model folder's config.json (a regular file of at most MAX_CONFIG_CHARS)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ConfigError("{path} is not a regular file.", id="config.not_file", path=path)
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_CONFIG_CHARS + 1)
    except UnicodeDecodeError:
        raise ConfigError("{path} is not UTF-8 text.", id="config.not_utf8", path=path) from None
    except OSError as exc:
        raise ConfigError("Cannot read {path}: {why}.", id="config.unreadable", path=path,
                          why=os_reason(exc)) from None
    return ModelArgs.from_json(text)


MAX_CONFIG_CHARS = 1_000_000
INT_FIELDS = ("n_embd", "n_heads", "dim", "max_seq_len", "vocab_size", "block_size", "n_layer",
              "src_vocab_size", "hidden_dim", "pad_id")
OPTIONAL = frozenset({"dim", "block_size", "src_vocab_size", "hidden_dim"})
RANGES: dict[str, tuple[int, int]] = {
    "n_embd": (1, 1 << 16), "n_heads": (1, 1 << 12), "max_seq_len": (1, 1 << 20), "vocab_size": (1, 1 << 24),
    "block_size": (1, 1 << 20), "n_layer": (1, 1 << 10), "src_vocab_size": (1, 1 << 24),
    "hidden_dim": (1, 1 << 20), "pad_id": (0, 1 << 24),
}


def _check_types(args: ModelArgs) -> None:
    for name in INT_FIELDS:
        value = getattr(args, name)
        if value is None and name in OPTIONAL:
            continue
        if not isinstance(value, int) or isinstance(value, bool):  # JSON true is not a number here
            raise ConfigError("{name} must be a whole number, not {value}.", id="config.not_int", name=name,
                              value=_shown(value))
    dropout = args.dropout
    if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not math.isfinite(dropout):
        raise ConfigError("dropout must be a number in [0, 1), not {value}.", id="config.dropout_type",
                          value=_shown(dropout))


def _shown(value) -> str:
    """A value for a sentence: short and on one line (repr escapes control characters)."""
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bytes(n: int) -> str:
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,} bytes"


def max_model_bytes() -> int:
    """The most parameter and buffer memory tfdebug builds a model with: 64 GB, or half the RAM when less."""
    cap = 64 * 10**9
    try:
        cap = min(cap, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2)
    except (AttributeError, ValueError, OSError):
        pass
    return cap
