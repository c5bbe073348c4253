"""The transplant: one pass's tensor put into the other pass at one stage, and the rest of that pass run again.

Two passes part ways at a stage either because that stage is computed differently there (another
kernel, another rounding) or because it carries a difference made upstream. Putting the reference's
tensor in at that stage and running on answers which, and how much of the final difference starts
there: "transplanting dec.3.self_attn.context brings the max |Δ| of logits from 1.8 to 0.02".

    divergence = transplant_stage(DebugSession(adapter, texts), reference_captures, comparison)
    divergence.describe()

The stage is the comparison's first divergent one; when nothing diverges, the first stage that
differs at all (the kernel noise starts there); or the stage the caller names. The pass run again is
compared stage by stage with the donor, by the comparison's tolerance and orientation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfdebug.core.compare import COMPARED, Comparison, StageComparison, compare, format_delta, pass_entries
from tfdebug.core.errors import CompareError
from tfdebug.core.phrases import Phrase

FIRST_DIVERGENT, FIRST_DIFFERENT, NAMED = "first_divergent", "first_different", "named"


@dataclass(frozen=True)
class Transplant:
    """What putting the donor's tensor in at `stage` did: `output`'s max |Δ| `before` and `after`, and the
    comparison of the pass run again (`comparison`); `chosen` says why this stage (FIRST_DIVERGENT …)."""

    stage: str
    chosen: str
    output: str
    before: float
    after: float
    comparison: Comparison

    @property
    def first_divergent_after(self) -> str | None:
        """The first stage still over tolerance after the transplant (None: none is)."""
        first = self.comparison.first_divergent
        return None if first is None else first.name

    def describe(self) -> Phrase:
        """One sentence: the stage, the output and the two differences."""
        return Phrase("Transplanting {stage} (the reference's tensor put in, the rest run again) brings the max "
                      "|Δ| of {output} from {before} to {after}.", id="transplant.effect", stage=self.stage,
                      output=self.output, before=format_delta(self.before), after=format_delta(self.after))

    def remaining(self) -> Phrase:
        """One sentence: what still diverges after the transplant."""
        after = self.first_divergent_after
        if after is None:
            return Phrase("After it, no stage diverges.", id="transplant.none_after")
        return Phrase("After it, the first divergent stage is {stage}.", id="transplant.first_after", stage=after)

    def to_dict(self) -> dict:
        """JSON-friendly (`from_dict` reads it back)."""
        return {"stage": self.stage, "chosen": self.chosen, "output": self.output,
                "before": _number(self.before), "after": _number(self.after), "comparison": self.comparison.to_dict()}

    @classmethod
    def from_dict(cls, data: dict) -> "Transplant":
        """`to_dict`'s dict read back; KeyError, TypeError or ValueError when it is not one."""
        if data["chosen"] not in (FIRST_DIVERGENT, FIRST_DIFFERENT, NAMED):
            raise ValueError(f"unknown choice {data['chosen']!r}")
        return cls(str(data["stage"]), data["chosen"], str(data["output"]), float(data["before"]),
                   float(data["after"]), Comparison.from_dict(data["comparison"]))


def _number(x: float):
    return "inf" if x == float("inf") else ("nan" if x != x else x)


def choose_stage(result: Comparison, named: str | None = None) -> tuple[StageComparison, str] | None:
    """The stage to transplant and why: `named`, else the first divergent, else the first that differs at all;
    None when the passes are equal everywhere. CompareError when `named` is not in both passes alike."""
    if named is not None:
        row = result[named] if named in result else None
        if row is None or row.status != COMPARED:
            raise CompareError("Stage {stage} is not in both passes with the same shape, so nothing can be "
                               "transplanted there.", id="transplant.no_stage", stage=named)
        return row, NAMED
    if result.first_divergent is not None:
        return result.first_divergent, FIRST_DIVERGENT
    row = next((r for r in result.stages if r.status == COMPARED and r.max_abs), None)
    return None if row is None else (row, FIRST_DIFFERENT)


class _Side:
    """One stage of a pass as `compare` reads a pass."""

    def __init__(self, capture, tensor):
        self.captures, self.tensor = [capture], lambda _: tensor


def transplant_stage(session, donor: Any, result: Comparison, stage: str | None = None,
                     donor_is_a: bool = True) -> Transplant | None:
    """Run `session` (a DebugSession on the recipient's model and input) again with the `donor` pass's tensor
    (a recording or captures holding tensors) put in at `stage` (default: `choose_stage`), comparing each stage
    with the donor's as it runs; None when the passes are equal everywhere. `donor_is_a`: the donor is pass A
    of `result` (the reference), else B."""
    chosen = choose_stage(result, stage)
    if chosen is None:
        return None
    row, why = chosen
    captures, tensor_of = pass_entries(donor)
    by_name = {c.name: c for c in captures}
    if row.name not in by_name:
        raise CompareError("The reference pass did not keep stage {stage}, so nothing can be transplanted there.",
                           id="transplant.not_kept", stage=row.name)
    rows: list[StageComparison] = []

    def judge(capture) -> None:
        kept = by_name.get(capture.name)
        if kept is not None and capture.tensor is not None:
            donor_side, own = _Side(kept, tensor_of(kept)), _Side(capture, capture.tensor)
            a, b = (donor_side, own) if donor_is_a else (own, donor_side)
            rows.extend(compare(a, b, atol=result.atol, rtol=result.rtol).stages)
        capture.drop()
    session.capture_all(on_capture=judge, verify="never", transplant={row.name: tensor_of(by_name[row.name])})
    after = Comparison(tuple(rows), result.atol, result.rtol)
    output = next((r.name for r in reversed(result.stages) if r.status == COMPARED and r.name in after), row.name)
    before_abs, after_abs = result[output].max_abs, after[output].max_abs
    assert before_abs is not None and after_abs is not None  # `output` is a stage compared in both passes
    return Transplant(row.name, why, output, before_abs, after_abs, after)
