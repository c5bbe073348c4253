"""What a backward says beside its gradients (`sessions.gradient_session.BackwardSummary`) as JSON fields, bounded.

One form serves both places it travels: a served backward's reply (`remote.backwards`) and a saved backward's
manifest (`io.recording.backward_doc`'s `summary`), so a reopened snapshot shows the same saliency and norms as
the window that ran it. Numbers are JSON numbers, NaN and ±∞ the texts "nan", "inf", "-inf" (JSON has none).
`summary_fields` writes the fields, cut to the bounds; `summary_parts` reads them back, each value checked
(TypeError or ValueError in one sentence), as the keyword arguments of a BackwardSummary. A summary written before
the per-module norms and the frames has neither: they read back empty.
"""

from __future__ import annotations

import math

MAX_TOKENS = 2**16   # tokens (and frames) a summary's saliency carries (a longer pass's is cut there)
MAX_LAYERS = 4096    # layers and modules of the parameters' norms
MAX_NAME = 256       # characters of a token's label, a parameter's name, a stack's or a module's
SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def number_field(x: float) -> float | str:
    """`x` as the fields write it: a finite number as itself, NaN and ±∞ as texts."""
    x = float(x)
    return x if math.isfinite(x) else ("nan" if x != x else ("inf" if x > 0 else "-inf"))


def read_number(value) -> float:
    """A number as `number_field` wrote it (TypeError for anything else)."""
    if isinstance(value, str) and value in SPECIAL:
        return SPECIAL[value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("a summary's value is not a number")
    return float(value)


def summary_fields(summary) -> dict:
    """`summary` (a BackwardSummary, or anything with its fields) as JSON fields, cut to the bounds."""
    def pairs(items, limit):
        return [[str(a)[:MAX_NAME], number_field(b)] for a, b in items[:limit]]

    def numbers(items, limit):
        return [[number_field(a), number_field(b)] for a, b in items[:limit]]
    return {"tokens": [str(t)[:MAX_NAME] for t in summary.tokens[:MAX_TOKENS]],
            "saliency": numbers(summary.saliency, MAX_TOKENS),
            "layers": pairs(summary.layers, MAX_LAYERS), "largest": pairs(summary.largest, MAX_LAYERS),
            "modules": [[str(stack)[:MAX_NAME], layer, str(module)[:MAX_NAME], number_field(norm)]
                        for stack, layer, module, norm in summary.modules[:MAX_LAYERS]],
            "frames": numbers(summary.frames, MAX_TOKENS)}


def summary_parts(data) -> dict:
    """`summary_fields`' form read back as a BackwardSummary's keyword arguments, each value checked."""
    def texts(value, limit):
        if not isinstance(value, list) or len(value) > limit or not all(isinstance(t, str) for t in value):
            raise TypeError("the summary's labels are not a list of texts")
        return list(value)

    def rows(value, first, limit):
        if not isinstance(value, list) or len(value) > limit:
            raise TypeError("the summary's rows are not a list")
        out = []
        for row in value:
            if not isinstance(row, list) or len(row) != 2:
                raise TypeError("a summary row is not a pair")
            out.append((first(row[0]), read_number(row[1])))
        return out

    def name(value):
        if not isinstance(value, str) or len(value) > MAX_NAME:
            raise TypeError("a summary row's name is not a text")
        return value

    def module_rows(value):  # [stack, layer or null, module, norm]
        if not isinstance(value, list) or len(value) > MAX_LAYERS:
            raise TypeError("the summary's module norms are not a list")
        out = []
        for row in value:
            if not isinstance(row, list) or len(row) != 4:
                raise TypeError("a module norm is not four fields")
            layer = row[1]
            if layer is not None and (isinstance(layer, bool) or not isinstance(layer, int) or layer < 0):
                raise TypeError("a module norm's layer is not an index")
            out.append((name(row[0]), layer, name(row[2]), read_number(row[3])))
        return out

    if not isinstance(data, dict):
        raise TypeError("the backward's summary is not an object")
    parts = {"tokens": texts(data["tokens"], MAX_TOKENS), "saliency": rows(data["saliency"], read_number, MAX_TOKENS),
             "layers": rows(data["layers"], name, MAX_LAYERS), "largest": rows(data["largest"], name, MAX_LAYERS),
             "modules": module_rows(data.get("modules", [])),
             "frames": rows(data.get("frames", []), read_number, MAX_TOKENS)}
    if len(parts["tokens"]) != len(parts["saliency"]):
        raise ValueError("the saliency is not one pair per token")
    return parts
