"""What the Generation dock shows, found in a pass's plan and history (no Qt here).

A generation's stages are named `gen.{t}.{stage}`. The dock follows the step of the
stage on screen: the caches and attention rows of that step when they have been
captured, else those of the latest earlier step that has them (a step's first stages
run before its attention does). Live passes and replays are read the same way, from
the stepper's history; the token strip's probabilities come from the live session,
since a snapshot does not store them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfdebug.core.names import parse_name
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import parse_token_ref, token_labels

if TYPE_CHECKING:  # the generation session (and torch) load with a model, not with the window
    from tfdebug.sessions.generation import TokenEntry

SELF, CROSS = "self_attn", "cross_attn"


@dataclass(frozen=True)
class Found:
    """A capture the dock shows and the step it comes from (≤ the step on screen)."""

    capture: Capture
    step: int


def step_of(name: str | None) -> int | None:
    """The generation step of a stage name, None for a single pass."""
    return parse_name(name).step if name else None


def is_generation(plan: Plan) -> bool:
    return any(step_of(c.name) is not None for c in plan)


def cache_layers(plan: Plan) -> list[tuple[str, int]]:
    """(stack, layer) of every layer with a KV cache stage, in plan order: ('dec', 0), ('dec', 1) …"""
    out: list[tuple[str, int]] = []
    for capture in plan:
        if capture.info.kind == "kv_cache" and capture.info.layer is not None:
            key = (parse_name(capture.name).stack, capture.info.layer)
            if key not in out:
                out.append(key)
    return out


def stage_name(step: int, stack: str, layer: int, block: str, stage: str) -> str:
    return f"gen.{step}.{stack}.{layer}.{block}.{stage}"


def latest(stepper, upto: int, step: int, stack: str, layer: int, block: str, stage: str) -> Found | None:
    """The capture of `stage` at `step`, or at the latest earlier step, among the stages up to history
    position `upto` (the shown stage's)."""
    if stepper is None:
        return None
    for s in range(step, -1, -1):
        position = stepper.position_of(stage_name(s, stack, layer, block, stage))
        if position is not None and position <= upto:
            capture = stepper.history[position]
            # A replay reads a stage's tensor when it is first shown; a remote pass's stays on the server.
            holds = getattr(stepper, "holds_tensor", None)
            kept = holds(capture) if holds is not None else stepper.tensor_of(capture) is not None
            return Found(capture, s) if kept else None
    return None


def new_rows(stepper, found: Found, stack: str, layer: int, block: str, stage: str) -> int:
    """How many of a cache's rows (keys) its step added: its length minus the step before's."""
    axis = found.capture.info.axes.index("key")
    rows = found.capture.shape[axis]
    if found.step == 0:
        return rows
    position = stepper.position_of(stage_name(found.step - 1, stack, layer, block, stage))
    before = stepper.history[position].shape[axis] if position is not None else 0
    return rows - before


def key_labels(tokens: dict[str, list[str]], capture: Capture) -> list[str]:
    """The token strings of a capture's `key` axis; indices when they are not known."""
    n = capture.shape[capture.info.axes.index("key")]
    ref = capture.info.tokens.get("key")
    labels = token_labels(tokens, ref) if ref else None
    return list(labels) if labels and len(labels) == n else [str(i) for i in range(n)]


def growing_stream(plan: Plan) -> tuple[str, int] | None:
    """(stream, prompt length) of a generation: the stream step 1 reads a one-token slice of."""
    for capture in plan:
        if step_of(capture.name) != 1:
            continue
        for ref in capture.info.tokens.values():
            try:
                stream, start, stop = parse_token_ref(ref)
            except ValueError:
                continue
            if start is not None and stop - start == 1:
                return stream, start
    return None


def strip_from_tokens(plan: Plan, tokens: dict[str, list[str]]) -> list[TokenEntry]:
    """The strip of a recorded generation: its prompt (step 0), then one token per step that chose it.

    Probabilities are not recorded in a snapshot, so these tokens have none.
    """
    from tfdebug.sessions.generation import TokenEntry

    grown = growing_stream(plan)
    if grown is None:  # one step only: the stream step 0 reads
        steps = [c for c in plan if step_of(c.name) == 0]
        refs = [parse_token_ref(r) for c in steps for r in c.info.tokens.values() if "[" in r]
        if not refs:
            return []
        stream, prompt = refs[0][0], max(r[2] for r in refs)
    else:
        stream, prompt = grown
    words = tokens.get(stream, [])
    return ([TokenEntry(w, 0, False) for w in words[:prompt]]
            + [TokenEntry(w, i, True) for i, w in enumerate(words[prompt:])])


def strip_entries(source, plan: Plan, tokens: dict[str, list[str]]) -> list[TokenEntry]:
    """The token strip's entries of the pass on screen (its `source`, `plan` and `tokens`): a live
    generation's, with probabilities and alternatives, else a recording's tokens."""
    if source is not None and source.is_generation:
        return source.session.entries()
    return strip_from_tokens(plan, tokens)
