"""The notes' toy attention example, computed exactly: one query against three words.

    q = [1, 0.5]                       (the query "fruit")
    K = [[0.9, 0.6],                   apple's key
         [0.8, 0.7],                   banana's key
         [0.1, 0.1]]                   chair's key
    V = [[5, 2], [4, 3], [1, 9]]       their values

scores x = q·Kᵀ = [1.2, 1.15, 0.15]; weights w = softmax(x) (or softmax(x / √d_k) when
scaled); output = w·V. Unscaled: w = [0.4346, 0.4134, 0.1521], output [3.978, 3.478].
The notes round w to [0.45, 0.43, 0.12] before multiplying and so print [4.09, 3.27].

Plain Python floats (double precision): the playground must be exact where the notes round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

WORDS = ("apple", "banana", "chair")
QUERY = (1.0, 0.5)
KEYS = ((0.9, 0.6), (0.8, 0.7), (0.1, 0.1))
VALUES = ((5.0, 2.0), (4.0, 3.0), (1.0, 9.0))
# The weights as the notes print them, and the output they compute from those.
NOTES_WEIGHTS = (0.45, 0.43, 0.12)

Vector = tuple[float, ...]
Matrix = tuple[Vector, ...]


@dataclass(frozen=True)
class ToyAttention:
    """Every intermediate of one query's attention: scores, the scaled scores, weights and output."""

    scores: Vector          # q·k_j for every key j
    divisor: float          # √d_k when scaled, else 1
    scaled: Vector          # scores / divisor
    weights: Vector         # softmax(scaled): sums to 1
    output: Vector          # Σ_j weights_j · v_j

    @property
    def weights_sum(self) -> float:
        return math.fsum(self.weights)


def softmax(x: Vector) -> Vector:
    """exp(x_i) / Σ exp(x_j), shifted by max(x) so that large scores do not overflow."""
    top = max(x)
    exps = [math.exp(v - top) for v in x]
    total = math.fsum(exps)
    return tuple(e / total for e in exps)


def weighted_sum(weights: Vector, values: Matrix) -> Vector:
    """Σ_j weights_j · values_j: each output feature mixes that feature of every value."""
    return tuple(math.fsum(w * row[f] for w, row in zip(weights, values)) for f in range(len(values[0])))


def attend(query: Vector = QUERY, keys: Matrix = KEYS, values: Matrix = VALUES, scale: bool = False) -> ToyAttention:
    """The attention of `query` over `keys`/`values` (one row per word); ValueError when the sizes disagree."""
    d_k = len(query)
    if not keys or any(len(k) != d_k for k in keys):
        raise ValueError(f"every key must have {d_k} numbers, like the query")
    if len(values) != len(keys) or not values[0] or any(len(v) != len(values[0]) for v in values):
        raise ValueError("give one value row per key, all of the same length")
    scores = tuple(math.fsum(q * k for q, k in zip(query, key)) for key in keys)
    divisor = math.sqrt(d_k) if scale else 1.0
    scaled = tuple(s / divisor for s in scores)
    weights = softmax(scaled)
    return ToyAttention(scores, divisor, scaled, weights, weighted_sum(weights, values))


def notes_output(values: Matrix = VALUES) -> Vector:
    """The output the notes print: their rounded weights times V."""
    return weighted_sum(NOTES_WEIGHTS, values)
