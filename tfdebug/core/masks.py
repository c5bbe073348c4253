"""What an attention mask hides, said once: the formula label a mask stage carries and its reverse.

A pass masks the future (causal), padded keys (padding), both, or nothing. The model
labels its `masked` stage with `mask_formula(...)` for the masks that apply in that
pass; views read the label back with `mask_parts(formula)` instead of guessing from the
stage's name.
"""

from __future__ import annotations

import re

CAUSAL, PADDING = "causal", "padding"

_BASE = "Q·Kᵀ / √d_k + M"
# The causal label predates this module and stays as it was (snapshots and goldens carry it).
_WHAT = {
    (CAUSAL,): "−∞ above the diagonal",
    (PADDING,): "−∞ at padded keys",
    (CAUSAL, PADDING): "−∞ above the diagonal and at padded keys",
}
_FORMULAS = {parts: f"{_BASE}  (M: {what})" for parts, what in _WHAT.items()}
_PARTS = {formula: parts for parts, formula in _FORMULAS.items()}


def mask_formula(causal: bool, padding: bool) -> str:
    """The formula label of a mask stage that hides the future (`causal`), padded keys (`padding`) or both."""
    parts = tuple(p for p, on in ((CAUSAL, causal), (PADDING, padding)) if on)
    if not parts:
        raise ValueError("a mask stage masks something: causal, padding or both")
    return _FORMULAS[parts]


def mask_parts(formula: str) -> tuple[str, ...] | None:
    """('causal',), ('padding',) or ('causal', 'padding') for a label made by `mask_formula`; None for any other."""
    return _PARTS.get(formula)


def mask_shape(parts: tuple[str, ...], scores_shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape of the additive mask M before it is broadcast over the scores (B, H, Tq, Tk).

    Causal: (1, 1, Tq, Tk), one triangle for every sentence and head; padding: (B, 1, 1, Tk),
    one row of −∞ per sentence; both: their sum, (B, 1, Tq, Tk). None when `scores_shape`
    is not 4-D.
    """
    if len(scores_shape) != 4:
        return None
    b, _, tq, tk = scores_shape
    causal, padding = CAUSAL in parts, PADDING in parts
    return (b if padding else 1, 1, tq if causal else 1, tk)


def mask_read_by(capture, captured):
    """The tensor of the mask stage a softmax stage read, when captured (`captured(name)` gives a
    stage's Capture or None), so the softmax's masked cells are drawn masked too; None otherwise."""
    if capture.info.kind != "softmax":
        return None
    for name in capture.info.inputs:
        source = captured(name)
        if source is not None and source.info.kind == "mask" and source.tensor is not None:
            return source.tensor
    return None


_WINDOW = re.compile(r"outside a (?:causal )?window of (\d+) keys")


def window_note(window: int, causal: bool) -> str:
    """What a sliding-window mask hides, as its formula says it (`window_size` reads the size back)."""
    return f"outside a {'causal ' if causal else ''}window of {window} keys"


def window_size(formula: str) -> int | None:
    """The sliding window a mask stage's formula names (made with `window_note`), or None."""
    match = _WINDOW.search(formula or "")
    return int(match.group(1)) if match else None
