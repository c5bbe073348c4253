"""Why This Output over a served pass: the lens, the attribution and the patching sweep run on the server.

The window's dock asks a `sessions.why_view.WhyView`. For a served pass that is `RemoteWhy`: each question is a
request (`why`, `lens`, `attribute`, `token_id`, `patch_sweep`) that the server's `ServedWhy` answers with the
local `sessions.why.Why` of its finished pass, where the captures and the model are. Only what the view shows
crosses: the rows and token labels once, then the lens cells of the positions in view (with the words of the
tokens they name), an attribution's terms, a sweep's rows × positions. Every reply is read back field by field
under `RemoteClient.reading` (a reply that is not what was asked closes the connection in one sentence).

A served sweep runs as one request: its forwards (rows × tokens, at most MAX_SWEEP_FORWARDS) are stated before it
runs, the server's heartbeat goes on during it, and the window hears its progress when it is done.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from tfdebug.core.attribution import Attribution, Term
from tfdebug.core.lens import LensCell, LensGrid
from tfdebug.core.readout import ReadoutError
from tfdebug.remote import wire
from tfdebug.remote.comparing import ComparisonJob, Made
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import (MAX_LENS_POSITIONS, MAX_SWEEP_FORWARDS, SWEEP_ACROSS, Message, number,
                                     wire_number)
from tfdebug.sessions.alignment import Alignment
from tfdebug.sessions.patch_one import PatchedPass
from tfdebug.sessions.patching import Sweep, predicted_sweep
from tfdebug.sessions.why import Why, finished_why

if TYPE_CHECKING:
    from tfdebug.remote.handlers import ServedSession

Reply = tuple[dict, list[np.ndarray]]
#: top tokens one lens reply may carry (positions × rows × k): well inside the window's header limit
MAX_LENS_TOPS = 2**18


# ----- the server's side ---------------------------------------------------------------------------------------
class ServedWhy:
    """The `Why` of the served pass once it has finished, made once per pass and answering the window's requests."""

    def __init__(self, served: "ServedSession"):
        self.served = served
        self._held: tuple[tuple, Why] | None = None

    def why(self) -> Why:
        """The finished served pass's Why (the same refusals as a local pass's: still running, a generation …)."""
        session = self.served.session
        history = session.stepper.history
        key = (self.served.pass_id, id(session), len(history), id(history[-1]) if history else None)
        if session.stepper.alive or self._held is None or self._held[0] != key:
            self._held = None
            self._held = (key, finished_why(session))
        return self._held[1]

    def on_why(self, m: Message) -> Reply:
        why = self.why()
        predictions = why.tensor(why.logits_stage).argmax(-1).cpu().numpy().astype(np.int64)
        return {"rows": list(why.rows), "count": why.count, "labels": why.token_labels(),
                "vocabulary": why.vocabulary_size, "head_rows": why.head_rows, "heads": why.heads}, [predictions]

    def on_lens(self, m: Message) -> Reply:
        why = self.why()
        tops = len(m["positions"]) * len(why.rows) * m["k"]
        if tops > MAX_LENS_TOPS:
            raise ReadoutError("A lens of {positions} positions × {rows} rows × {k} tokens is more than one reply "
                               "carries ({limit} tokens): ask for fewer positions.", id="why.lens_size",
                               positions=len(m["positions"]), rows=len(why.rows), k=m["k"], limit=MAX_LENS_TOPS)
        grid = why.lens(m["positions"], m["target"], k=m["k"])
        ids = {i for row in grid.cells for cell in row for i in (cell.target, *(t for t, _ in cell.top))}
        return {"grid": _wired(grid.to_dict()), "words": _words(why, ids)}, []

    def on_attribute(self, m: Message) -> Reply:
        why = self.why()
        result = why.attribute(m["target"], m["contrast"], m["position"])
        return {"attribution": _wired(result.to_dict()), "words": _words(why, (m["target"], m["contrast"]))}, []

    def on_token_id(self, m: Message) -> Reply:
        why = self.why()
        token = why.token_id(m["text"])
        return {"id": token, "words": _words(why, (token,))}, []

    def _check_inputs(self, texts: Mapping[str, str]) -> None:
        """A FrameError naming the first of `texts`' keys the served model takes no input by."""
        unknown = sorted(set(texts) - {f.key for f in self.served.session.adapter.inputs})
        if unknown:
            raise FrameError("The model takes no input named {name}.", id="remote.unknown_input", name=unknown[0])

    def on_patch_stage(self, m: Message) -> None:
        """Patch Stage on a thread of its own, answered as a comparison (the corrupted pass against the patched one,
        with the patch's numbers); refused at once where the pass cannot be read (still running …)."""
        why = self.why()
        self._check_inputs(m["texts"])

        def work() -> Made:
            patched = why.patch_one(dict(m["texts"]), m["stage"], m["position"], m["head"], m["align"])
            passes = patched.passes()
            assert passes is not None  # patched here, on the server
            return Made(patched.moved, None, passes, passes[1], {"patched": _wired(patched.to_dict())})
        self.served.begin_comparison(m, lambda: ComparisonJob(work))

    def on_patch_sweep(self, m: Message) -> Reply:
        why = self.why()
        self._check_inputs(m["texts"])
        across = m["across"] or "position"
        patcher = why.patcher(dict(m["texts"]), m["align"])  # the corrupted text's tokens: the sweep's positions
        rows, count = sweep_size(len(why.rows), len(why.head_rows), why.heads, patcher.count, across)
        forwards = rows * count
        if forwards > MAX_SWEEP_FORWARDS:
            raise ReadoutError("A sweep of this pass runs {forwards} forwards ({rows} rows × {count} columns); a "
                               "served sweep runs at most {limit}: sweep a shorter text.", id="why.sweep_size",
                               forwards=forwards, rows=rows, count=count, limit=MAX_SWEEP_FORWARDS)
        tick = self.served.keepalive

        def progress(done: int, total: int) -> bool:
            tick()  # the heartbeat goes on: the window waits, it does not take the server for gone
            return True
        sweep, target, contrast = predicted_sweep(patcher, progress, across)
        return {"sweep": _wired(sweep.to_dict()), "target": target, "contrast": contrast,
                "words": _words(why, (target, contrast))}, []


def _wired(value: Any) -> Any:
    """`value` (a to_dict form) with every float as `protocol.number` reads it back (NaN and ±∞ as texts)."""
    if isinstance(value, float):
        return wire_number(value)
    if isinstance(value, dict):
        return {k: _wired(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wired(v) for v in value]
    return value


def _words(why: Why, ids) -> dict[str, str]:
    """The vocabulary entries of `ids` (None and unknown ids left out), keyed by the id as text."""
    out = {}
    for token in ids:
        if token is not None and why.word(token) is not None:
            out[str(token)] = why.word(token)
    return out


# ----- the window's side ---------------------------------------------------------------------------------------
class RemoteWhy:
    """A served pass's WhyView (`sessions.why_view`): every answer computed on the server."""

    def __init__(self, session, rows: list[str], count: int, labels: list[str], vocabulary_size: int,
                 predictions: list[int], head_rows: list[str] | None = None, heads: int = 0):
        self._session = session
        self.rows, self._count, self._labels = rows, count, labels
        self.head_rows, self.heads = list(head_rows or []), heads
        self._vocabulary_size, self._predictions = vocabulary_size, predictions
        self._words: dict[int, str] = {}  # the words of the ids the server has named so far

    @classmethod
    def fetch(cls, session) -> "RemoteWhy":
        """Ask the server for the served pass's Why; its refusal (a pass still running …) is raised here."""
        def read(result, buffers) -> RemoteWhy:
            count = _whole(result["count"])
            if len(buffers) != 1 or buffers[0].dtype != np.int64 or buffers[0].shape != (count,):
                raise ValueError(f"the predictions are not {count} token ids")
            rows = [_text(r) for r in _list(result["rows"])]
            if not rows:
                raise ValueError("the lens has no rows")
            return cls(session, rows, count, [_text(t) for t in _list(result["labels"])],
                       _whole(result["vocabulary"]), [int(i) for i in buffers[0]],
                       [_text(r) for r in _list(result.get("head_rows") or [])], _whole(result.get("heads") or 0))
        return session.answer("why", {}, read)

    @property
    def count(self) -> int:
        return self._count

    @property
    def vocabulary_size(self) -> int:
        return self._vocabulary_size

    def token_labels(self) -> list[str]:
        return list(self._labels)

    def word(self, token: int) -> str | None:
        return self._words.get(token)

    def prediction(self, position: int) -> int:
        if not -self._count <= position < self._count:
            raise ReadoutError(f"Position {position} is outside the pass's {self._count} tokens.")
        return self._predictions[position]

    def _learn(self, words) -> None:
        for key, value in _mapping(words).items():
            self._words[int(key)] = _text(value)

    def token_id(self, text: str) -> int:
        def read(result, _) -> int:
            self._learn(result.get("words") or {})
            return _whole(result["id"])
        return self._session.answer("token_id", {"text": text}, read)

    def lens(self, positions: Sequence[int] | None = None, target: int | None = None, k: int = 5) -> LensGrid:
        wanted = list(range(self._count)) if positions is None else [int(p) for p in positions]
        grid = LensGrid(list(self.rows), [], [[] for _ in self.rows])
        for start in range(0, len(wanted), MAX_LENS_POSITIONS):  # a request reads at most that many positions
            chunk = wanted[start:start + MAX_LENS_POSITIONS]

            def read(result, _, chunk=chunk) -> LensGrid:
                part = lens_of(result["grid"])
                self._learn(result.get("words") or {})
                if part.rows != self.rows or part.positions != [p % self._count for p in chunk]:
                    raise ValueError("the lens is not of the rows and positions asked for")
                return part
            part = self._session.answer("lens", {"positions": chunk, "target": target, "k": int(k)}, read)
            grid.positions += part.positions
            for r, row in enumerate(part.cells):
                grid.cells[r] += row
        return grid

    def attribute(self, target: int, contrast: int | None = None, position: int = -1) -> Attribution:
        def read(result, _) -> Attribution:
            out = attribution_of(result["attribution"])
            self._learn(result.get("words") or {})
            if (out.target, out.contrast) != (target, contrast):
                raise ValueError("the attribution is not of the tokens asked for")
            return out
        return self._session.answer("attribute", {"target": int(target), "contrast": contrast,
                                                  "position": int(position)}, read)

    def patch_one(self, corrupt: Mapping[str, str], stage: str, position: int | None = None,
                  head: int | None = None, align: str | None = None) -> PatchedPass:
        """Patch Stage on the server: its numbers and what moved cross; the two passes stay there, where the
        Compare dock's planes are cut (`PatchedPass.passes()` is None here)."""
        def read(result, _) -> PatchedPass:
            data = _mapping(result["patched"])
            moved = wire.comparison_of(result.get("comparison"))
            out = PatchedPass(_text(data["stage"]), _text(data["scope"]), [], [], moved, _whole(data["target"]),
                              _optional(_whole, data["contrast"]), _whole(data["position"]), _real(data["ld_clean"]),
                              _real(data["ld_corrupt"]), _real(data["ld_patched"]), here=False)
            if out.stage != stage:
                raise ValueError("the patch is not of the stage asked for")
            return out
        return self._session.answer("patch_stage", {"texts": dict(corrupt), "stage": stage, "position": position,
                                                    "head": head, "align": align}, read, timeout=3600.0)

    def sweep(self, corrupt: Mapping[str, str], progress=None, across: str = "position", align: str | None = None):
        rows = self.head_rows if across.startswith("head") else self.rows
        total = len(rows) * sweep_size(len(self.rows), len(self.head_rows), self.heads, self._count, across)[1]
        if progress is not None and progress(0, total) is False:
            raise ReadoutError("The sweep was cancelled.")

        def read(result, _):
            sweep = sweep_of(result["sweep"])
            self._learn(result.get("words") or {})
            # the columns: heads, or the corrupted text's positions (as many as its tokens: another length maybe)
            columns = self.heads if across == "head" else len(sweep.tokens) if sweep.tokens else self._count
            if sweep.across != across or sweep.rows != rows or sweep.positions != list(range(columns)) or \
                    across == "head_position" and sweep.heads != list(range(self.heads)):
                raise ValueError(f"the sweep is not of this pass's rows and {across}s")
            return sweep, _whole(result["target"]), _whole(result["contrast"])
        out = self._session.answer("patch_sweep", {"texts": dict(corrupt), "across": across, "align": align}, read,
                                   timeout=3600.0)
        if progress is not None and progress(total, total) is False:
            raise ReadoutError("The sweep was cancelled.")
        return out


# ----- reading the server's data (each value checked: a wrong type is a ValueError or TypeError) ---------------
def _whole(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{value!r:.40} is not a whole number")
    return value


def _real(value) -> float:
    return number()("value", value)


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r:.40} is not a text")
    return value


def _list(value) -> list:
    if not isinstance(value, list):
        raise TypeError(f"{value!r:.40} is not a list")
    return value


def _mapping(value) -> dict:
    if not isinstance(value, dict):
        raise TypeError(f"{value!r:.40} is not an object")
    return value


def _optional(read, value):
    return None if value is None else read(value)


def lens_of(data) -> LensGrid:
    """A LensGrid from its `to_dict` form, checked."""
    data = _mapping(data)
    grid = LensGrid([_text(r) for r in _list(data["rows"])], [_whole(p) for p in _list(data["positions"])])
    for row in _list(data["cells"]):
        cells = []
        for c in _list(row):
            c = _mapping(c)
            top = tuple((_whole(_list(t)[0]), _real(t[1])) for t in _list(c["top"]))
            cells.append(LensCell(top, _whole(c["target"]), _real(c["p_target"]), _whole(c["rank"]),
                                  _real(c["entropy"]), _real(c["kl"])))
        if len(cells) != len(grid.positions) or not all(cell.top for cell in cells):
            raise ValueError("a lens row does not have a cell at each position")
        grid.cells.append(cells)
    if len(grid.cells) != len(grid.rows):
        raise ValueError("the lens does not have a row of cells for each row")
    return grid


def attribution_of(data) -> Attribution:
    """An Attribution from its `to_dict` form, checked."""
    data = _mapping(data)
    out = Attribution(_whole(data["position"]), _whole(data["target"]), _optional(_whole, data["contrast"]),
                      _real(data["logit_diff"]), notes=[_text(n) for n in _list(data["notes"])],
                      convention=_text(data["convention"]))
    for t in _list(data["terms"]):
        t = _mapping(t)
        out.terms.append(Term(_text(t["label"]), _text(t["kind"]), _real(t["value"]), _optional(_whole, t["layer"]),
                              _optional(_whole, t["head"]), _text(t["stage"])))
    return out


def sweep_size(rows: int, head_rows: int, heads: int, count: int, across: str) -> tuple[int, int]:
    """(rows, columns) of a sweep `across` a pass of `rows` residual rows, `head_rows` attention contexts of at most
    `heads` heads and `count` tokens: the forwards it patches are their product."""
    if across == "head":
        return head_rows, heads
    if across == "head_position":
        return head_rows, heads * count
    return rows, count


def sweep_of(data) -> Sweep:
    """A Sweep from its `to_dict` form, checked (rows × positions of both tables)."""
    data = _mapping(data)
    across = _text(data.get("across") or "position")
    if across not in SWEEP_ACROSS:
        raise ValueError(f"a sweep goes across {' or '.join(SWEEP_ACROSS)}, not {across!r:.40}")
    sweep = Sweep([_text(r) for r in _list(data["rows"])], [_whole(p) for p in _list(data["positions"])],
                  _real(data["ld_clean"]), _real(data["ld_corrupt"]), across=across,
                  heads=[_whole(h) for h in _list(data.get("heads") or [])] if across == "head_position" else [],
                  batch=_whole(data.get("batch") or 1), batches=_whole(data.get("batches") or 0),
                  tokens=[_text(t) for t in _list(data.get("corrupt_tokens") or [])],
                  cells=_whole(data.get("cells") or 0))
    if data.get("alignment") is not None:
        aligned = _mapping(data["alignment"])
        try:
            given = Alignment.given([(_whole(_list(p)[0]), _whole(p[1])) for p in _list(aligned["pairs"])],
                                    _whole(aligned["clean_count"]), _whole(aligned["corrupt_count"]))
            sweep.alignment = replace(given, by_hand=aligned.get("by_hand") is True)
        except ReadoutError as exc:
            raise ValueError(f"the sweep's alignment is not one: {exc}") from None
    for key, table in (("recovered", sweep.recovered), ("ld_patched", sweep.patched)):
        rows = [[_real(v) for v in _list(row)] for row in _list(data[key])]
        if len(rows) != len(sweep.rows) or any(len(row) != len(sweep.columns) for row in rows):
            raise ValueError(f"the sweep's {key} is not rows × columns")
        table.extend(rows)
    if _whole(data["forwards"]) != sweep.forwards:
        raise ValueError("the sweep's count of forwards does not match its rows × positions")
    return sweep
