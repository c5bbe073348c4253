"""Decoding settings and the choice of the next token from one step's logits.

Greedy takes the likeliest token. Sampling divides the logits by a temperature, keeps
the top-k tokens and/or the smallest set whose probabilities reach top-p, and draws
from what is left with a seeded generator, so the same seed gives the same tokens.
The window, the CLI and the Python API all build a `DecodingSettings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tfdebug.core.errors import InputError

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch
    from torch import Tensor

TOP_SHOWN = 5  # alternatives kept with each choice (the token strip's hover list)


MIN_TEMPERATURE, MAX_TEMPERATURE = 1e-4, 1e4
MIN_SEED, MAX_SEED = -(2**63), 2**64 - 1  # what torch.Generator.manual_seed takes


@dataclass(frozen=True)
class DecodingSettings:
    """How the next token is chosen and when generation stops.

    `sample=False` is greedy (temperature, top-k and top-p are then ignored); `top_k=0`
    and `top_p=1.0` switch those filters off; `seed` makes sampling reproducible.
    """

    max_new_tokens: int = 20
    sample: bool = False
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0
    stop_at_eos: bool = True

    def __post_init__(self):
        if self.max_new_tokens < 1:
            raise InputError("Max new tokens must be at least 1.", id="decoding.max_new_tokens")
        if not MIN_TEMPERATURE <= self.temperature <= MAX_TEMPERATURE:  # nan and inf fail too
            # Below ~1e-4 the scaled logits overflow float32 (1e-45 makes every score inf, then NaN).
            raise InputError("The temperature must be a number from {least:g} to {most:g}.",
                             id="decoding.temperature", least=MIN_TEMPERATURE, most=MAX_TEMPERATURE)
        if not MIN_SEED <= self.seed <= MAX_SEED:
            raise InputError("The seed must be a whole number from {least} to {most}.", id="decoding.seed",
                             least=MIN_SEED, most=MAX_SEED)
        if self.top_k < 0:
            raise InputError("Top-k must be 0 (off) or a positive number of tokens.", id="decoding.top_k")
        if not 0 < self.top_p <= 1:
            raise InputError("Top-p must be greater than 0 and at most 1.", id="decoding.top_p")

    def describe(self) -> str:
        """One line: 'greedy, up to 20 tokens' or 'sampling (T=0.8, top-k 40, top-p 0.9, seed 1), up to 20 tokens'."""
        if not self.sample:
            how = "greedy"
        else:
            parts = [f"T={self.temperature:g}"]
            if self.top_k:
                parts.append(f"top-k {self.top_k}")
            if self.top_p < 1:
                parts.append(f"top-p {self.top_p:g}")
            parts.append(f"seed {self.seed}")
            how = f"sampling ({', '.join(parts)})"
        stop = ", stop at <eos>" if self.stop_at_eos else ""
        return f"{how}, up to {self.max_new_tokens} tokens{stop}"


@dataclass(frozen=True)
class Choice:
    """The token chosen at one step: its id, its probability under the model, and the likeliest alternatives.

    Probabilities are the model's softmax over the step's logits (before temperature and
    filters), so a sampled unlikely token shows as unlikely.
    """

    step: int
    id: int
    probability: float
    top: tuple[tuple[int, float], ...] = field(default=())


def new_generator(settings: DecodingSettings) -> torch.Generator:
    """The CPU generator sampling draws from: seeded, so a run can be repeated exactly on any device."""
    import torch
    return torch.Generator(device="cpu").manual_seed(settings.seed)


def choose(logits: Tensor, settings: DecodingSettings, generator: torch.Generator, step: int,
           banned: tuple[int, ...] = ()) -> Choice:
    """The next token from one position's logits (vocab,): greedy or sampled, never a `banned` id."""
    import torch
    # (V,): one transfer per step, the draw happens on the CPU; a copy, as the logits are a captured stage.
    scores = logits.detach().float().cpu().clone()
    if banned:
        scores[list(banned)] = float("-inf")
    probs = torch.softmax(scores, dim=-1)  # (V,)
    if not settings.sample:
        token = int(torch.argmax(scores))
    else:
        token = int(torch.multinomial(_filtered(scores, settings), 1, generator=generator))
    top_p, top_i = torch.topk(probs, min(TOP_SHOWN, probs.numel()))
    top = tuple((int(i), float(p)) for i, p in zip(top_i.tolist(), top_p.tolist()))
    return Choice(step=step, id=token, probability=float(probs[token]), top=top)


def _filtered(scores: Tensor, settings: DecodingSettings) -> Tensor:
    """Sampling probabilities (V,): temperature, then top-k, then top-p; removed tokens get 0."""
    import torch
    scores = scores / settings.temperature
    if settings.top_k:
        kth = torch.topk(scores, min(settings.top_k, scores.numel())).values[-1]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    if settings.top_p < 1:
        sorted_scores, order = torch.sort(scores, descending=True)
        cumulative = torch.softmax(sorted_scores, dim=-1).cumsum(dim=-1)  # (V,)
        # Drop a token when the ones before it already reach top-p: the likeliest always stays.
        drop_sorted = (cumulative - torch.softmax(sorted_scores, dim=-1)) >= settings.top_p
        drop = torch.zeros_like(drop_sorted).scatter(0, order, drop_sorted)
        scores = scores.masked_fill(drop, float("-inf"))
    return torch.softmax(scores, dim=-1)
