"""Live checks of a stage's tensor against what its kind promises, with a tick or a cross.

`stage_checks(info, tensor, lookup)` runs where the tensor lives (any device) and returns
a few `Check`s: rows of `probs` sum to 1, `masked` is −∞ strictly above the diagonal
and `probs` is 0 there, `scaled` × √d_k equals `scores` with this pass's d_k, a head
split only regroups the projection, a residual is exactly its two inputs added … Other
stages of the same pass come from `_t(lookup, name)`, a Capture or None (that stage did not
run, or its tensor was dropped: the check then says it could not be made). Each check reads its
tensors once: the window runs them on its display worker, off the GUI thread.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

from tfdebug.core.masks import CAUSAL, PADDING, mask_parts
from tfdebug.core.phrases import Phrase
from tfdebug.core.recipes import RECIPE_KINDS, is_plane
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo, parse_token_ref

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

Lookup = Callable[[str], "Capture | None"]


@dataclass(frozen=True)
class Check:
    """One claim about a tensor: `ok` True (tick), False (cross) or None (could not be checked); `detail` the
    figures (a plain string when it has no words to translate). Both are English; the window translates
    the phrases."""

    ok: bool | None
    text: Phrase | str  # a formula ("scores = Q·Kᵀ") is not translated
    detail: Phrase | str = ""


def _tolerance(t: Tensor) -> float:
    import torch
    return 1e-2 if t.dtype in (torch.float16, torch.bfloat16) else 1e-5


def _sibling(info: StageInfo, stage: str) -> str:
    """The stage `stage` of the same block: 'dec.0.self_attn.probs' -> 'dec.0.self_attn.masked'."""
    return info.name.rsplit(".", 1)[0] + "." + stage


def _masked_cells(t: Tensor) -> Tensor:
    """−∞ cells, or cells at or below finfo.min / 2 (how transformers marks them)."""
    import torch
    return t <= torch.finfo(t.dtype).min / 2


def _above_diagonal(t: Tensor) -> Tensor:
    """True strictly above the diagonal of the last two axes; with fewer queries than keys (a KV cache)
    the queries are the last ones, so the diagonal is shifted right by T_k − T_q."""
    import torch
    tq, tk = t.shape[-2], t.shape[-1]
    return torch.ones(tq, tk, dtype=torch.bool, device=t.device).triu(tk - tq + 1)


def _t(lookup: Lookup, name: str) -> Tensor | None:
    """The tensor of stage `name` in this pass, or None."""
    capture = lookup(name)
    return capture.tensor if capture is not None else None


def _max_diff(a: Tensor, b: Tensor) -> float:
    """max |a − b|, where a NaN (or an infinity) in both at the same cell counts as equal: a NaN that
    came in through an input is carried, not made, by the stage being checked."""
    import torch
    if not a.numel():
        return 0.0
    a, b = torch.broadcast_tensors(a.double(), b.double())
    same = (a == b) | (a.isnan() & b.isnan())
    return float(torch.where(same, 0.0, (a - b).abs()).max())


def _close(a: Tensor, b: Tensor) -> tuple[bool, float]:
    """Whether a ≈ b within the dtype's tolerance relative to b's size; the max |Δ|."""
    diff = _max_diff(a, b)
    scale = max(1.0, float(b.double().abs().max())) if b.numel() else 1.0
    return diff <= _tolerance(a) * scale, diff


def _equal_check(ok_diff: tuple[bool, float], claim: Phrase | str) -> Check:
    ok, diff = ok_diff
    return Check(ok, claim, f"max |Δ| = {diff:.1e}")


def _missing(claim: str, stage: str) -> Check:
    return Check(None, claim, Phrase("{stage} is not in this pass's history", id="check.missing", stage=stage))


# ----- per kind -----------------------------------------------------------------------------
def _softmax(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    import torch
    sums = t.sum(-1, dtype=torch.float32)  # torch sums float32 pairwise: exact enough, 15× faster than float64
    off = float((sums - 1).abs().max()) if sums.numel() else 0.0
    lo, hi = (float(v) for v in torch.aminmax(t)) if t.numel() else (0.0, 0.0)
    out = [Check(off <= _tolerance(t) * t.shape[-1], Phrase("Every row sums to 1", id="check.rows_sum"),
                 f"max |Σ − 1| = {off:.1e}"),
           Check(0.0 <= lo and hi <= 1.0, Phrase("Every weight is between 0 and 1", id="check.weights_range"),
                 f"min {lo:.3g}, max {hi:.3g}")]
    masked_stage = lookup(_sibling(info, "masked"))
    masked = masked_stage.tensor if masked_stage is not None else None
    if masked_stage is not None and masked is not None and masked.shape == t.shape:
        cells = _masked_cells(masked)
        parts = mask_parts(masked_stage.info.formula) or ()
        top = float(t.masked_select(cells).abs().max()) if bool(cells.any()) else 0.0
        claim = (Phrase("0 wherever the mask is −∞ (strictly above the diagonal)", id="check.zero_above")
                 if parts == (CAUSAL,) else Phrase("0 wherever the mask is −∞", id="check.zero_masked"))
        out.append(Check(top == 0.0, claim, Phrase("{n} masked cells, largest weight there {top}",
                                                   id="check.masked_weight", n=int(cells.sum()), top=f"{top:.1e}")))
    return out


def _mask(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    cells = _masked_cells(t)
    parts = mask_parts(info.formula)
    out = []
    if t.dim() >= 2:
        above = _above_diagonal(t).expand_as(cells)
        if parts is not None and CAUSAL in parts:
            out.append(Check(bool(cells[above].all()), Phrase("−∞ everywhere strictly above the diagonal",
                                                              id="check.causal"),
                             Phrase("{n} of {total} cells above the diagonal masked", id="check.causal_cells",
                                    n=int(cells[above].sum()), total=int(above.sum()))))
        below = cells & ~above
        if parts == (CAUSAL,):
            out.append(Check(not bool(below.any()), Phrase("Nothing on or below the diagonal is masked",
                                                           id="check.open_below"),
                             Phrase("{n} masked cells on or below the diagonal", id="check.below_cells",
                                    n=int(below.sum()))))
        elif parts is not None and PADDING in parts:
            # A padded key is hidden from every query that could otherwise see it: whole columns.
            padded = below.any(dim=-2, keepdim=True)  # keys masked somewhere on or below the diagonal
            out.append(Check(bool((below == (padded & ~above)).all()),
                             Phrase("Padding hides whole key columns (<pad> keys)", id="check.padding"),
                             Phrase("{n} masked key columns over all sentences and heads", id="check.padding_columns",
                                    n=int(padded.sum()))))
        full = cells.all(-1)
        out.append(Check(not bool(full.any()), Phrase("No query row is masked entirely (softmax would give NaN)",
                                                      id="check.no_full_row"),
                         Phrase("{n} fully masked rows", id="check.full_rows", n=int(full.sum()))))
    # What the mask was added to: its declared input (scaled, or T5's position_bias), else `scaled`.
    before_name = info.inputs[0] if info.inputs else _sibling(info, "scaled")
    before = _t(lookup, before_name)
    if before is not None and before.shape == t.shape:
        open_cells = ~cells
        stage = before_name.rsplit(".", 1)[-1]
        out.append(_equal_check(_close(t[open_cells], before[open_cells]),
                                Phrase("Elsewhere equal to {stage}: M adds 0 there", id="check.mask_adds_zero",
                                       stage=stage)))
    return out


def _scale(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    scores = _t(lookup, _sibling(info, "scores"))
    q = _operand(info, lookup, "q")
    if scores is None or q is None or scores.shape != t.shape:
        return [_missing("scaled = scores ÷ √d_k", _sibling(info, "scores"))]
    d_k = q.shape[-1]
    root = math.sqrt(d_k)
    factor = _stated_factor(info.formula)
    if factor is None or math.isclose(factor * root, 1.0, rel_tol=1e-6):
        return [_equal_check(_close(t * root, scores), Phrase("scaled × √{d_k} equals scores (÷ {root})",
                                                              id="check.scaled", d_k=d_k, root=f"{root:.4g}"))]
    # A model with its own scale (T5 multiplies by 1): checked as stated, and said to differ from 1/√d_k.
    return [_equal_check(_close(t, scores * factor),
                         Phrase("scaled = scores × {factor} (not ÷ √{d_k}: this model's own scale)",
                                id="check.own_scale", factor=f"{factor:.4g}", d_k=d_k))]


def _stated_factor(formula: str) -> float | None:
    """The factor in a formula 'Q·Kᵀ × 0.125' (adapters state theirs); None for 'Q·Kᵀ / √d_k'."""
    _, times, rest = formula.partition("×")
    try:
        return float(rest.strip().split()[0]) if times else None
    except (ValueError, IndexError):
        return None


def _first(info: StageInfo, lookup: Lookup, stages: tuple[str, ...]) -> Tensor | None:
    """The tensor of the first of `stages` (siblings) that ran in this pass."""
    for stage in stages:
        tensor = _t(lookup, _sibling(info, stage))
        if tensor is not None:
            return tensor
    return None


def _operand(info: StageInfo, lookup: Lookup, role: str) -> Tensor | None:
    """Q, K or V as attention multiplied it: repeated for grouped queries, else cached, else rotated, else split."""
    return _first(info, lookup, (f"{role}_repeat", f"cache_{role}", f"{role}_rotary", f"{role}_split"))


def _scores(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    import torch
    q, k = _operand(info, lookup, "q"), _operand(info, lookup, "k")
    if q is None or k is None or q.dim() != 4 or k.dim() != 4:
        return [_missing("scores = Q·Kᵀ", _sibling(info, "q_split"))]
    product = torch.matmul(q.double(), k.double().transpose(-2, -1))
    if product.shape != t.shape:
        return []
    return [_equal_check(_close(t, product), Phrase("Equal to Q·Kᵀ recomputed (d_k = {d_k} summed away)",
                                                    id="check.scores", d_k=q.shape[-1]))]


def _head_split(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    import torch
    proj = _t(lookup, _sibling(info, info.role)) if info.role else None
    if proj is None or t.dim() != 4 or proj.dim() != 3:
        return []
    b, h, n, d_k = t.shape
    regrouped = proj.view(b, n, h, d_k).transpose(1, 2)
    same = bool(torch.equal(regrouped, t))
    return [Check(h * d_k == proj.shape[-1], Phrase("{h} heads × d_k {d_k} = d_model {d_model}",
                                                    id="check.head_split", h=h, d_k=d_k, d_model=proj.shape[-1])),
            Check(same, Phrase("Only a view and a transpose of the projection: the same numbers",
                               id="check.split_view"))]


def _head_merge(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    import torch
    context = _t(lookup, _sibling(info, "context"))
    if context is None or context.dim() != 4 or t.dim() != 3:
        return []
    merged = context.transpose(1, 2).reshape(t.shape)
    return [Check(bool(torch.equal(merged, t)), Phrase("The heads side by side, numbers unchanged",
                                                       id="check.head_merge"))]


def _attn_v(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    import torch
    probs, v = _first(info, lookup, ("dropout", "probs")), _operand(info, lookup, "v")
    if probs is None or v is None:
        return [_missing("context = P·V", _sibling(info, "dropout"))]
    if is_plane(probs) and probs.dim() == 4 and v.dim() == 4 and probs.shape[1] % v.shape[1] == 0:
        group = probs.shape[1] // v.shape[1]  # a recipe's probabilities one head at a time, with the V head it read
        expected = torch.cat([torch.matmul(probs[:, h:h + 1].double(), v[:, h // group:h // group + 1].double())
                              for h in range(probs.shape[1])], dim=1)
    else:
        expected = torch.matmul(probs.double(), v.double())
    return [_equal_check(_close(t, expected.to(t.dtype)), Phrase("Equal to P·V recomputed", id="check.attn_v"))]


def _kv_repeat(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    """Grouped-query attention: every K/V head of the input, repeated in place for its group of query heads."""
    import torch
    source = _t(lookup, info.inputs[0]) if len(info.inputs) == 1 else None
    if source is None or t.dim() != 4 or source.dim() != 4 or t.shape[1] % source.shape[1]:
        return []
    group = t.shape[1] // source.shape[1]
    same = source.shape[2:] == t.shape[2:] and bool(torch.equal(source.repeat_interleave(group, dim=1), t))
    return [Check(same, Phrase("Each group of {group} heads holds {group} copies of one K/V head",
                               id="check.kv_repeat", group=group))]


def _sum_of_inputs(info: StageInfo, t: Tensor, lookup: Lookup, claim: Phrase) -> list[Check]:
    parts = [_t(lookup, name) for name in info.inputs]
    if len(parts) != 2:
        return []
    first, second = parts
    if first is None or second is None:
        return []
    return [_equal_check(_close(t, first + second), claim)]


def _residual(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    return _sum_of_inputs(info, t, lookup, Phrase("Exactly the block's input + the sublayer's output",
                                                  id="check.residual"))


def _positional_add(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    return _sum_of_inputs(info, t, lookup, Phrase("Exactly the embedding + the PE table (broadcast over the batch)",
                                                  id="check.positional_add"))


def _positional_encoding(info: StageInfo, t: Tensor, lookup: Lookup) -> list[Check]:
    import torch
    if "sin" not in info.formula or t.dim() != 2:
        return []  # a learned position table (GPT-2's P[pos]) promises none of this
    row0 = t[0].double()
    in_range = Check(bool((t.abs() <= 1).all()), Phrase("Every value lies in [−1, 1]", id="check.pe_range"))
    position = parse_token_ref(info.tokens.get("token", ""))[1] or 0  # a generation step's row is its token's
    if position:
        d = row0.numel()
        angle = position / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64, device=row0.device) / d)
        expected = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten()[:d]
        diff = float((row0 - expected).abs().max())
        return [Check(diff <= _tolerance(t), Phrase("Row 0 is position {position}: the sin and cos of the formula",
                                                   id="check.pe_position", position=position),
                      f"max |Δ| = {diff:.1e}"), in_range]
    expected = torch.zeros_like(row0)
    expected[1::2] = 1
    return [Check(bool(torch.equal(row0, expected)), Phrase("Row 0 is exactly [0, 1, 0, 1, …]", id="check.pe_row0"),
                  "[" + ", ".join(f"{x:g}" for x in row0[:6].tolist()) + ", …]"), in_range]


_CHECKS: dict[str, Callable[[StageInfo, Tensor, Lookup], list[Check]]] = {
    "softmax": _softmax, "mask": _mask, "scale": _scale, "scores": _scores, "head_split": _head_split,
    "head_merge": _head_merge, "attn_v": _attn_v, "kv_repeat": _kv_repeat, "residual": _residual,
    "positional_add": _positional_add,
    "positional_encoding": _positional_encoding,
}


def stage_checks(info: StageInfo, tensor: Tensor | None, lookup: Lookup) -> list[Check]:
    """The checks a stage of this kind can be held to, computed on its tensor (none without one)."""
    import torch
    func = _CHECKS.get(info.kind)
    if func is None or tensor is None or not tensor.is_floating_point():
        return []
    with torch.no_grad():
        if is_plane(tensor) and tensor.dim() == 4 and info.kind in RECIPE_KINDS:  # one head's plane, a band at a time
            heads, bands = tensor.shape[1], _row_bands(info, tensor)
            if heads > 1 or len(bands) > 1:
                return _combined([func(info, tensor[:, h:h + 1, rows], _block_lookup(lookup, h, heads, rows, tensor.shape[2]))
                                  for h in range(heads) for rows in bands])
        return func(info, tensor, lookup)


# Kinds each of whose claims holds query row by query row, given the same rows of the planes and of Q they read.
_ROW_BY_ROW = frozenset({"softmax", "scale", "scores"})
_QUERY_STAGES = frozenset({"q_repeat", "cache_q", "q_rotary", "q_split"})


def _row_bands(info: StageInfo, plane) -> list[slice]:
    """The bands of query rows a recipe plane of this kind is checked in: of about `bands.BAND_CELLS` cells a
    head (a 32k-token head's claims never hold its whole 4.3 GB plane and their float64 copies), or the whole
    head where a claim reads across rows (the mask's diagonal and padded columns)."""
    from tfdebug.core import bands
    from tfdebug.core.recipes import aligned_band, row_bands
    rows, cols = plane.shape[2], plane.shape[3]
    if info.kind not in _ROW_BY_ROW or not bands.banded(plane, 2, rows, cols):
        return [slice(None)]
    return row_bands(rows, aligned_band(bands.BAND_CELLS // max(1, cols)))


def _block_lookup(lookup: Lookup, head: int, heads: int, rows: slice, n_rows: int) -> Lookup:
    """`lookup` with every (batch, head, …) stage cut to the heads serving query head `head` (a grouped K or V
    head for a stage of fewer heads; a recipe plane computed for that head alone), and the planes and Q of all
    `n_rows` query rows cut to `rows` — in one indexing, so a recipe plane computes only that block."""
    def at_block(name: str) -> Capture | None:
        capture = lookup(name)
        t = capture.tensor if capture is not None else None
        if capture is None or t is None or t.dim() != 4:
            return capture
        cut_heads = t.shape[1] != 1 and not heads % t.shape[1]
        h = head // (heads // t.shape[1]) if cut_heads else 0
        queries = t.shape[2] == n_rows and (capture.info.kind in RECIPE_KINDS
                                            or name.rsplit(".", 1)[-1] in _QUERY_STAGES)
        index = (slice(None), slice(h, h + 1) if cut_heads else slice(None), rows if queries else slice(None))
        return capture if index == (slice(None),) * 3 else replace(capture, tensor=t[index])
    return at_block


def _combined(per_head: list[list[Check]]) -> list[Check]:
    """One list of checks from each head's: a claim fails where any head fails it, is unchecked where any head
    could not check it; its figures are over every head (counts summed, the largest difference, the extremes)."""
    out = []
    for checks in zip(*per_head):
        oks = [c.ok for c in checks]
        ok = False if False in oks else None if None in oks else True
        worst = next((c for c in checks if c.ok is ok), checks[0])
        out.append(Check(ok, worst.text, _merged_detail([c.detail for c in checks]) or worst.detail))
    return out


def _merged_detail(details: list) -> Phrase | str | None:
    """The figures of one claim over every head, from each head's (None when their form is not known here)."""
    first = details[0]
    if isinstance(first, Phrase) and all(isinstance(d, Phrase) and d.id == first.id for d in details):
        params = dict(first.params)
        for key in ("n", "total"):
            if key in params:
                params[key] = sum(int(d.params[key]) for d in details)
        if "top" in params:
            params["top"] = max(details, key=lambda d: float(d.params["top"])).params["top"]
        return Phrase(first.template, id=first.id, context=first.context, **params)
    if not all(isinstance(d, str) and not isinstance(d, Phrase) for d in details):
        return None
    found = [re.fullmatch(r"min (\S+), max (\S+)", d) for d in details]
    extremes = [m for m in found if m is not None]
    if len(extremes) == len(found):
        return f"min {min(float(m[1]) for m in extremes):.3g}, max {max(float(m[2]) for m in extremes):.3g}"
    prefix = first[: first.rfind("= ") + 2] if "= " in first else None
    if prefix and all(d.startswith(prefix) for d in details):
        return prefix + max(details, key=lambda d: float(d[len(prefix):]))[len(prefix):]
    return None
