"""ModelArgs: the reference model's configuration, with the field names of the notes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from tfdebug.core.errors import ConfigError


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
        if self.dim is None:
            self.dim = self.n_embd
        if self.block_size is None:
            self.block_size = self.max_seq_len
        if self.hidden_dim is None:
            self.hidden_dim = 4 * self.n_embd
        self.validate()

    def validate(self) -> None:
        """Raise ConfigError with a sentence when the numbers cannot build a model."""
        for name in ("n_embd", "n_heads", "max_seq_len", "vocab_size", "n_layer", "hidden_dim", "block_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ConfigError(f"{name} must be a positive whole number, not {value!r}.")
        if self.src_vocab_size is not None and self.src_vocab_size <= 0:
            raise ConfigError(f"src_vocab_size must be positive, not {self.src_vocab_size!r}.")
        if self.n_embd % self.n_heads != 0:
            raise ConfigError(
                f"n_embd ({self.n_embd}) must be divisible by n_heads ({self.n_heads}): "
                f"each head gets n_embd / n_heads features."
            )
        if self.dim != self.n_embd:
            raise ConfigError(
                f"dim ({self.dim}) must equal n_embd ({self.n_embd}): W^O writes back into the residual stream."
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigError(f"dropout must be in [0, 1), not {self.dropout!r}.")

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
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"Unknown model config keys: {', '.join(unknown)}.")
        return cls(**data)
