"""Activation patching between two passes: put the clean pass's value of a stage into the corrupted pass and
run the rest of it again, and see how much of the clean pass's answer comes back.

The answer is a logit difference, LD = logit(target) − logit(contrast) at a position; patching one cell gives
the fraction recovered, (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt): 1 where the cell carries all of
the difference, 0 where it carries none. A sweep patches every residual row (the embeddings, then each block's
output: the lens's rows) at every position, or every attention head's output (its slice of the context, P·V
before the heads are merged: every position of that head) in every attention, one forward each; the count is
known before it runs (`Sweep.forwards`). The corrupted pass keeps only the stages a patch needs (its rows, its
heads' contexts and its logits), and the patched value goes in through the session's transplant, the same path
as the Compare dock's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import torch

from tfdebug.adapters.base import Prepared
from tfdebug.core.readout import ReadoutError
from tfdebug.sessions.alignment import Alignment
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.why import Why


#: the stage kind whose head axis a head sweep patches: each head's P·V, before the heads are merged
HEAD_KIND = "attn_v"
#: a sweep's columns: token positions of residual rows, heads of attention contexts, or (head, position) pairs
ACROSS = ("position", "head", "head_position")
#: the most patched copies of the corrupted pass one forward runs (past this a CPU's forward gains nothing)
MAX_BATCH = 32
#: the batch when the capture budget is unknown (no free-memory count on the device)
UNKNOWN_BUDGET_BATCH = 8
#: the axes a stage's positions lie along (residual rows: token; attention contexts: query)
POSITION_AXES = ("token", "query")


@dataclass
class Sweep:
    """Fraction recovered for `rows` × columns, and the two passes' own logit differences. `across` says what
    the columns are: token positions of residual rows ("position"), heads of attention contexts ("head": then
    `positions` holds the head indices), or each head at each position ("head_position": `heads` × `positions`,
    head-major: column c is head `heads[c // len(positions)]` at position `positions[c % len(positions)]`, as
    `columns` lists). `batch` and `batches`: the patched copies each forward ran and the forwards run."""

    rows: list[str]
    positions: list[int]
    clean: float
    corrupt: float
    recovered: list[list[float]] = field(default_factory=list)
    patched: list[list[float]] = field(default_factory=list)  # the logit difference of each patched pass
    across: str = "position"
    heads: list[int] = field(default_factory=list)  # "head_position": the heads (else empty)
    batch: int = 1
    batches: int = 0
    #: which clean position went into which corrupted one (`sessions.alignment`; None: position by position)
    alignment: Alignment | None = None
    #: the corrupted pass's token strings (the positions' labels; [] when unknown)
    tokens: list[str] = field(default_factory=list)
    #: the cells patched (rows × columns less those with nothing to patch: a position no clean one pairs with, a
    #: head an attention does not have); 0 when not counted (every cell)
    cells: int = 0

    @property
    def columns(self) -> list[tuple[int, int]] | list[int]:
        """Each column's label: a position or head, or (head, position) for "head_position"."""
        if self.across == "head_position":
            return [(h, p) for h in self.heads for p in self.positions]
        return list(self.positions)

    def labels(self, clean: Sequence[str]) -> list[str]:
        """A label for each of the corrupted pass's positions: the clean pass's token strings `clean` when the two
        texts pair position by position, else the corrupted pass's own."""
        aligned = self.alignment is not None and not self.alignment.identity
        return list(self.tokens) if aligned or not clean else list(clean)

    @property
    def forwards(self) -> int:
        """The patched cells (each one a forward of the corrupted pass; batched, `batches` forwards ran them)."""
        return len(self.rows) * len(self.columns)

    def to_dict(self) -> dict:
        """A JSON-ready dict (documented in docs/why.md)."""
        data = {"rows": self.rows, "positions": self.positions, "ld_clean": self.clean, "ld_corrupt": self.corrupt,
                "recovered": self.recovered, "ld_patched": self.patched, "forwards": self.forwards,
                "across": self.across, "batch": self.batch, "batches": self.batches,
                "corrupt_tokens": self.tokens, "cells": self.cells or self.forwards}
        if self.across == "head_position":
            data.update(heads=self.heads, columns=[list(c) for c in self.columns])  # type: ignore[arg-type]
        if self.alignment is not None and not self.alignment.identity:
            data["alignment"] = self.alignment.to_dict()
        return data


def head_stages(captures: Mapping) -> list[str]:
    """The stages of `captures` (name → Capture, forward order) a head sweep patches: every attention's context
    with a head axis, kept."""
    return [name for name, c in captures.items()
            if c.info.kind == HEAD_KIND and "head" in c.info.axes and c.tensor is not None]


def head_count(captures: Mapping, stages: Sequence[str]) -> int:
    """The most heads any of `stages` has (a head sweep's columns)."""
    return max((captures[s].tensor.shape[captures[s].info.axes.index("head")] for s in stages), default=0)


def logit_difference(logits: torch.Tensor, position: int, target: int, contrast: int | None, row: int = 0) -> float:
    """logit(target) − logit(contrast) (the target's logit alone without a contrast) at `position` of batch row
    `row`."""
    values = logits[row, position].double()
    return float(values[target] - (values[contrast] if contrast is not None else 0.0))


def _kept(why: Why, stage: str) -> torch.Tensor:
    """Stage `stage`'s tensor in `why`'s pass (every batch row)."""
    tensor = why.captures[stage].tensor
    assert tensor is not None  # a finished pass of a patcher keeps the stages it patches
    return tensor


def repeated(prepared: Prepared, batch: int) -> Prepared:
    """`prepared` (one batch row) as `batch` identical rows: every tensor whose first axis is 1 repeated along it
    (ids, attention mask, token types); the rest as it is."""
    def grown(value):
        if isinstance(value, torch.Tensor) and value.dim() and value.shape[0] == 1:
            return value.repeat(batch, *([1] * (value.dim() - 1)))
        return value
    return replace(prepared, args=tuple(grown(v) for v in prepared.args),
                   kwargs={k: grown(v) for k, v in prepared.kwargs.items()})


#: one assignment of a patch: the index into the corrupted pass's stage and the index of the clean value put there
#: (every axis after the batch axis; they differ along the position axis where the texts are aligned)
Move = tuple[tuple, tuple]
#: one patched cell: the stage and its moves
Cell = tuple[str, tuple[Move, ...]]


class Patcher:
    """A clean and a corrupted pass of one model, ready to patch: `patch(stage, value)` runs the corrupted pass
    with `stage` replaced by `value`; `sweep(...)` patches every residual row at every position, `head_sweep(...)`
    every head of every attention (with `positions`, every head at each position).

    The two texts may differ in length: `align` pairs their positions (`sessions.alignment`: (clean, corrupted)
    pairs or "CLEAN:CORRUPTED,…"; by default the shared first tokens from the start and the rest from the end).
    Positions are the corrupted pass's; the clean pass's logit difference is read at the position paired with the
    one measured.

    A sweep runs its cells `batch` at a time: one forward of the corrupted pass repeated along the batch axis,
    each batch row with its own cell patched (the session's transplant, handed the batch's tensor at each stage,
    puts the clean value into the rows whose cell is there). `batch` None chooses it from the capture budget
    (`batch_size`); 1 runs one forward a cell."""

    def __init__(self, adapter, clean: Mapping[str, str], corrupt: Mapping[str, str], batch: int | None = None,
                 max_capture_bytes: int | None = None, align: Sequence[tuple[int, int]] | str | None = None):
        from tfdebug.sessions.why import finished_pass

        self.adapter = adapter
        self.clean = finished_pass(adapter, texts=dict(clean))
        self.corrupt = finished_pass(adapter, texts=dict(corrupt))
        #: the corrupted pass's tokens (the positions a sweep patches) and the clean pass's
        self.count = int(self.corrupt.tensor(self.corrupt.logits_stage).shape[0])
        self.clean_count = int(self.clean.tensor(self.clean.logits_stage).shape[0])
        self.alignment = self._aligned(align)
        self.rows = list(self.clean.rows)
        #: every attention's context (its head axis: each head's P·V), in forward order
        self.head_stages = head_stages(self.clean.captures)
        self._stages = [*self.rows, *self.head_stages, self.clean.logits_stage]
        self._session = DebugSession(adapter, dict(corrupt), stages=self._stages, planning="lazy")
        self._batched: dict[int, DebugSession] = {}
        if batch is not None and batch < 1:
            raise ReadoutError(f"A sweep runs at least one patched copy a forward, not {batch}.")
        self.batch = batch
        #: the capture budget a batch keeps within (None: the device's default, `core.budget`)
        self.max_capture_bytes = max_capture_bytes

    def logits(self, why: Why) -> torch.Tensor:
        """A finished pass's logits (batch, token, vocab) (before a softcap, as the attribution reads them)."""
        return _kept(why, why.logits_stage)

    def patch(self, stage: str, value: torch.Tensor) -> torch.Tensor:
        """The corrupted pass run again with `stage` replaced by `value`: its logits."""
        captures, _ = self._session.capture_all(verify="never", transplant={stage: value})
        logits = next(c.tensor for c in captures if c.name == self.clean.logits_stage)
        assert logits is not None  # capture_all keeps the stages it was asked for
        return logits

    def _aligned(self, align: Sequence[tuple[int, int]] | str | None) -> Alignment:
        """The positions' pairs: `align` checked, or the default from the two passes' token strings."""
        if isinstance(align, str):
            return Alignment.parse(align, self.clean_count, self.count)
        if align is not None:
            return Alignment.given(align, self.clean_count, self.count)
        clean: list[object] = list(self.clean.token_labels())
        corrupt: list[object] = list(self.corrupt.token_labels())
        if len(clean) != self.clean_count or len(corrupt) != self.count:  # no token strings: pair from the end
            clean, corrupt = [("clean", i) for i in range(self.clean_count)], list(range(self.count))
        return Alignment.default(clean, corrupt)

    def clean_position(self, position: int) -> int:
        """The clean position paired with the corrupted pass's `position` (negative: from the end), where the
        clean pass's logit difference is read; ReadoutError when none is."""
        if not -self.count <= position < self.count:
            raise ReadoutError(f"Position {position} is outside the corrupted text's {self.count} tokens.")
        source = self.alignment.clean_of(position)
        if source is None:
            raise ReadoutError(f"Position {position % self.count} of the corrupted text pairs with no position of "
                               "the clean one, so the clean pass's logit difference there is not defined: pair it "
                               "(--align CLEAN:CORRUPTED).")
        return source

    def heads(self, stage: str) -> int:
        """How many heads the context `stage` has."""
        return head_count(self.clean.captures, [stage])

    def moves(self, stage: str, position: int | None = None, head: int | None = None) -> tuple[Move, ...] | None:
        """How the clean pass's `stage` goes into the corrupted pass's — whole, at the corrupted pass's `position`,
        for `head` — as (corrupted index, clean index) pairs after the batch axis; None where nothing can go (a
        position no clean one pairs with, a stage whose shapes differ beyond the aligned positions)."""
        capture = self.clean.captures[stage]
        axes = capture.info.axes
        clean_shape, corrupt_shape = tuple(capture.shape)[1:], tuple(self.corrupt.captures[stage].shape)[1:]
        base: list = [slice(None)] * (len(axes) - 1)
        if head is not None:
            base[axes.index("head") - 1] = head
        axis = next((axes.index(a) - 1 for a in POSITION_AXES if a in axes), None)
        aligned = (axis is not None and not self.alignment.identity and clean_shape[axis] == self.clean_count
                   and corrupt_shape[axis] == self.count
                   and clean_shape[:axis] + clean_shape[axis + 1:] == corrupt_shape[:axis] + corrupt_shape[axis + 1:])
        if not aligned:  # the same positions on both sides (texts of one length, or a stream they share)
            if clean_shape != corrupt_shape or position is not None and axis is None:
                return None
            if position is not None and axis is not None:
                base[axis] = position % corrupt_shape[axis]
            return ((tuple(base), tuple(base)),)
        assert axis is not None  # aligned only along a position axis
        pairs = self.alignment.pairs
        if position is not None:
            source = self.alignment.clean_of(position)
            pairs = () if source is None else ((source, position % self.count),)
        out = []
        for clean_position, corrupt_position in pairs:
            index, source_index = list(base), list(base)
            index[axis], source_index[axis] = corrupt_position, clean_position
            out.append((tuple(index), tuple(source_index)))
        return tuple(out) or None

    def _put(self, value: torch.Tensor, stage: str, moves: Sequence[Move], rows: int | slice = slice(None)
             ) -> torch.Tensor:
        """`value` (a batch of `stage`) with the clean pass's cells put in by `moves`, into batch `rows`."""
        clean = _kept(self.clean, stage)[0]
        for index, source in moves:
            value[(rows, *index)] = clean[source].to(value.device, value.dtype)
        return value

    def row_bytes(self, cells: Sequence[Cell]) -> int:
        """What one batch row of a sweep of `cells` holds: its logits and a row of every stage it patches, kept,
        and the forward's working memory in passing (`working_bytes`)."""
        stages = {stage for stage, _ in cells} | {self.clean.logits_stage}
        total = 0
        for stage in stages:
            tensor = _kept(self.clean, stage)
            total += tensor.nbytes // max(1, tensor.shape[0])
        return total + self.working_bytes()

    def working_bytes(self) -> int:
        """What one batch row of the forward holds in passing beyond what it keeps: the pass's largest stage (an
        attention plane counted whole, in float32 as its softmax makes it) three times over — the stage being made,
        its input and the one before it."""
        return 3 * max((math.prod(c.shape[1:]) * max(4, c.dtype.itemsize) for c in self.clean.captures.values()),
                       default=0)

    def batch_size(self, cells: Sequence[Cell]) -> int:
        """The patched copies one forward runs for `cells`: `batch` when given, else as many rows as the capture
        budget holds (`row_bytes` each, at most MAX_BATCH), spread evenly over the forwards it takes; 1 where
        the pass has no batch axis first."""
        if not cells:
            return 1
        stages = {stage for stage, _ in cells} | {self.clean.logits_stage}
        if any(self.clean.captures[s].info.axes[:1] != ("batch",) for s in stages):
            return 1
        if self.batch is not None:
            most = self.batch
        else:
            from tfdebug.core.budget import default_capture_budget

            budget = self.max_capture_bytes if self.max_capture_bytes is not None else \
                default_capture_budget(self.adapter.device)
            most = UNKNOWN_BUDGET_BATCH if budget is None else max(1, min(MAX_BATCH, budget // self.row_bytes(cells)))
        most = min(most, len(cells))
        forwards = -(-len(cells) // most)
        return -(-len(cells) // forwards)

    def batching(self, across: str = "position") -> tuple[int, int, int]:
        """(cells, batch, forwards) of the whole sweep `across` ("position", "head" or "head_position") of this
        pass, known before it runs: what the CLI and the Patching tab state."""
        if across == "position":
            found = [(stage, self.moves(stage, p)) for stage in self.rows for p in range(self.count)]
        else:
            heads = [(stage, h) for stage in self.head_stages for h in range(self.heads(stage))]
            found = [(stage, self.moves(stage, p, h)) for stage, h in heads
                     for p in (range(self.count) if across == "head_position" else [None])]
        cells: list[Cell] = [(stage, moves) for stage, moves in found if moves is not None]
        batch = self.batch_size(cells)
        return len(cells), batch, -(-len(cells) // batch)

    def _session_of(self, batch: int) -> DebugSession:
        if batch == 1:
            return self._session
        if batch not in self._batched:
            self._batched[batch] = DebugSession(self.adapter, self._session.texts, stages=self._stages,
                                                planning="lazy", prepared=repeated(self._session.prepared, batch))
        return self._batched[batch]

    def run_cells(self, cells: Sequence[Cell], position: int, target: int, contrast: int | None,
                  progress: Callable[[int, int], bool] | None = None, total: int | None = None,
                  done: int = 0) -> tuple[list[float], int, int]:
        """The logit difference at `position` with each of `cells` patched alone, `batch_size` cells a forward;
        `progress(done, total)` after each forward (False: stop, a ReadoutError). Returns (the differences,
        the batch, the forwards run)."""
        batch = self.batch_size(cells)
        session = self._session_of(batch)
        total = len(cells) if total is None else total
        out: list[float] = []
        forwards = 0
        for start in range(0, len(cells), batch):
            chunk = cells[start:start + batch]
            by_stage: dict[str, list[tuple[int, tuple[Move, ...]]]] = {}
            for row, (stage, moves) in enumerate(chunk):
                by_stage.setdefault(stage, []).append((row, moves))

            def patched(value: torch.Tensor, stage: str) -> torch.Tensor:
                value = value.clone()
                for row, moves in by_stage[stage]:
                    self._put(value, stage, moves, row)
                return value
            transplant = {stage: (lambda value, stage=stage: patched(value, stage)) for stage in by_stage}
            captures, _ = session.capture_all(verify="never", transplant=transplant,
                                              on_capture=self._drop_but_logits)
            logits = next(c.tensor for c in captures if c.name == self.clean.logits_stage)
            assert logits is not None and logits.shape[0] == batch  # the logits stay; the batch is the batch asked
            out.extend(logit_difference(logits, position, target, contrast, row) for row in range(len(chunk)))
            forwards += 1
            if progress is not None and progress(done + len(out), total) is False:
                raise ReadoutError("The sweep was cancelled.")
        return out, batch, forwards

    def _drop_but_logits(self, capture) -> None:
        """A batched pass keeps only its logits (the patched value still goes on into the forward)."""
        if capture.name != self.clean.logits_stage:
            capture.drop()

    def head_sweep(self, target: int, contrast: int | None = None, position: int = -1,
                   stages: Sequence[str] | None = None, progress: Callable[[int, int], bool] | None = None,
                   positions: Sequence[int] | None = None) -> Sweep:
        """Patch each head of each attention context in `stages` (every one) and measure the logit difference at
        `position`; a Sweep across heads (rows: the contexts; columns: heads 0 … H−1 of the widest). With
        `positions`, each head at each of those positions alone: a Sweep across "head_position"."""
        stages = list(stages) if stages is not None else self.head_stages
        for stage in stages:
            if stage not in self.head_stages:
                raise ReadoutError(f"{stage} is not an attention's context (P·V by head) in this pass; they are "
                                   f"{', '.join(self.head_stages) or 'none'}.")
        heads = list(range(head_count(self.clean.captures, stages)))
        if positions is None:
            return self._swept(target, contrast, position, stages, heads, "head", progress,
                               lambda stage, h: self.moves(stage, None, h) if h < self.heads(stage) else None)
        places = [p % self.count for p in positions]
        columns = [(h, p) for h in heads for p in places]
        return self._swept(target, contrast, position, stages, columns, "head_position", progress,
                           lambda stage, c: self.moves(stage, c[1], c[0]) if c[0] < self.heads(stage) else None,
                           heads=heads, positions=places)

    def sweep(self, target: int, contrast: int | None = None, position: int = -1,
              rows: Sequence[str] | None = None, positions: Sequence[int] | None = None,
              progress: Callable[[int, int], bool] | None = None) -> Sweep:
        """Patch each of `rows` (every residual row) at each of `positions` (every one) and measure the logit
        difference at `position`; `progress(done, total)` after each forward, returning False to stop."""
        rows = list(rows) if rows is not None else self.rows
        for stage in rows:
            if stage not in self.rows:
                raise ReadoutError(f"{stage} is not a residual row of this pass; the rows are {', '.join(self.rows)}.")
        positions = [p % self.count for p in (positions if positions is not None else range(self.count))]
        return self._swept(target, contrast, position, rows, positions, "position", progress,
                           lambda stage, p: self.moves(stage, p))

    def _swept(self, target: int, contrast: int | None, position: int, rows: list[str], columns: list,
               across: str, progress, moves_of: Callable[[str, Any], tuple[Move, ...] | None],
               heads: list[int] | None = None, positions: list[int] | None = None) -> Sweep:
        """Each row × column patched by `moves_of(row, column)` (None: no such cell, NaN in the tables)."""
        source = self.clean_position(position)
        position = position % self.count
        result = Sweep(rows, positions if positions is not None else columns,
                       logit_difference(self.logits(self.clean), source, target, contrast),
                       logit_difference(self.logits(self.corrupt), position, target, contrast), across=across,
                       heads=list(heads or []), alignment=self.alignment, tokens=self.corrupt.token_labels())
        cells: list[Cell] = []
        where: list[int | None] = []
        for stage in rows:
            for column in columns:
                moves = moves_of(stage, column)
                where.append(None if moves is None else len(cells))
                if moves is not None:
                    cells.append((stage, moves))
        lds, result.batch, result.batches = self.run_cells(cells, position, target, contrast, progress)
        result.cells = len(cells)
        gap = result.clean - result.corrupt
        for r in range(len(rows)):
            row = [float("nan") if w is None else lds[w] for w in where[r * len(columns):(r + 1) * len(columns)]]
            result.patched.append(row)
            result.recovered.append([(ld - result.corrupt) / gap if gap else float("nan") for ld in row])
        return result


def predicted_sweep(patcher: Patcher, progress: Callable[[int, int], bool] | None = None,
                    across: str = "position") -> tuple[Sweep, int, int]:
    """`patcher`'s sweep of every residual row × position (`across` "head": every head of every attention;
    "head_position": every head at every position),
    measuring logit(clean prediction) − logit(corrupted prediction) at the last position (the clean pass's second
    choice when both predict the same token): the Patching tab's question. Returns (the Sweep, target id,
    contrast id)."""
    if across not in ACROSS:
        raise ReadoutError(f"A sweep goes across {' or '.join(ACROSS)}, not {across!r}.")
    clean = patcher.logits(patcher.clean)[0, patcher.clean_position(-1)]
    corrupt = patcher.logits(patcher.corrupt)[0, -1]
    target, contrast = int(clean.argmax()), int(corrupt.argmax())
    if contrast == target:
        contrast = int(clean.argsort()[-2])
    if across == "head":
        return patcher.head_sweep(target, contrast, -1, progress=progress), target, contrast
    if across == "head_position":
        return patcher.head_sweep(target, contrast, -1, progress=progress, positions=range(patcher.count)), \
            target, contrast
    return patcher.sweep(target, contrast, -1, progress=progress), target, contrast
