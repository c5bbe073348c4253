"""Why this output, from a finished pass: the logit lens and the direct logit attribution of a live session or a
replayed snapshot (`recorded_why`: read out with the model the snapshot names, loaded here).

Both read the pass's own captured stages (the residual stream after the embeddings and after each block, the
attention blocks' merged heads) and the model's own readout modules (`ModelAdapter.readout`): nothing runs
the model again. `Why.of(adapter, captures)` checks once that the readout applied to the last residual stage gives the
logits stage (a model whose head does more than its final norm and unembedding is refused, not guessed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

import torch
from torch import Tensor

from tfdebug.core.attribution import Attribution, Term, direction, project
from tfdebug.core.lens import LensGrid, lens_grid
from tfdebug.core.model_lock import forward_lock
from tfdebug.core.names import parse_name
from tfdebug.core.readout import FrozenNorm, Readout, ReadoutError
from tfdebug.core.recorder import Capture

if TYPE_CHECKING:
    from tfdebug.adapters.base import ModelAdapter
    from tfdebug.io.recording import Recording

#: how far (relative to the logits' largest magnitude) the readout of the last residual may be from the logits
#: stage before the readout counts as not the model's: float32 and bfloat16 rounding of a re-run matmul
READOUT_MATCH = {torch.float32: 1e-5, torch.float64: 1e-12}
#: how far the heads' sum may be from what an attention block adds before the block is left unsplit
SPLIT_MATCH = 1e-3


def _cut(tensor: Tensor, row: int) -> Tensor:
    """Batch row `row` of a (batch, token, …) stage."""
    return tensor[row]


@dataclass
class Why:
    """The lens and attribution of one finished pass, from its captures and its model's readout."""

    readout: Readout
    captures: dict[str, Capture]
    residuals: list[str]  # the embeddings' stage, then every residual stage of the read stack in order
    rows: list[str]  # the lens's rows: the embeddings, then each layer's last residual stage
    logits_stage: str
    adapter: ModelAdapter
    tokens: dict = field(default_factory=dict)  # the pass's token strings per stream
    texts: dict = field(default_factory=dict)  # the pass's typed texts per input field (a sweep's clean texts)
    #: reads a stage kept on disk, not in memory (a snapshot opened lazily: `Recording.tensor`)
    load: Callable[[Capture], Tensor] | None = None
    _vocabulary: list | None = field(default=None, init=False, repr=False)

    @classmethod
    def of(cls, adapter, history: Sequence[Capture], tokens: dict | None = None,
           texts: dict | None = None, load: Callable[[Capture], Tensor] | None = None) -> "Why":
        """The lens and attribution of the pass of `adapter`'s model whose captures are `history` (a stepper's, or
        what `DebugSession.capture_all` returns; `load` reads those kept on disk); ReadoutError when the model has no
        usable readout or the stages it needs were not kept."""
        readout = adapter.readout()
        captures = {c.name: c for c in history}
        logits_stage = "head.raw" if readout.softcap else "logits"
        last = captures.get(readout.stage)
        if last is None or logits_stage not in captures:
            raise ReadoutError("The pass has not reached its logits yet: run it to the end first (F5).")
        stack = parse_name(readout.stage).stack
        residuals = [c.name for c in history
                     if c.info.kind == "residual" and parse_name(c.name).stack == stack
                     and parse_name(c.name).layer is not None]
        if not residuals or residuals[-1] != readout.stage:
            raise ReadoutError(f"The residual stream of {adapter.name} does not end at {readout.stage}, the stage its "
                               "final norm reads.")
        first = captures[residuals[0]].info.inputs[0] if captures[residuals[0]].info.inputs else ""
        if first not in captures:
            raise ReadoutError(f"tfdebug cannot tell which stage feeds the first block of {adapter.name}.")
        rows, by_layer = [first], {}
        for name in residuals:
            by_layer[parse_name(name).layer] = name
        rows += [by_layer[layer] for layer in sorted(by_layer)]
        why = cls(readout, captures, [first] + residuals, rows, logits_stage, adapter, dict(tokens or {}),
                  dict(texts or {}), load)
        with why.model():
            why._check_readout()
        return why

    def model(self):
        """The model's forward lock, held while its readout modules run (no pass or check of it runs meanwhile:
        their hooks would see the readout's calls)."""
        return forward_lock(self.adapter.model_root)

    def token_labels(self) -> list[str]:
        """The token strings along the logits stage's token axis (its stream's), [] when unknown."""
        stream = self.captures["logits"].info.tokens.get("token", "")
        return list(self.tokens.get(stream) or next(iter(self.tokens.values()), []))

    # ----- what the dock asks (sessions.why_view.WhyView) ---------------------------------------------------
    @property
    def count(self) -> int:
        """Tokens along the logits stage's token axis."""
        return int(self.tensor("logits").shape[0])

    def _words(self) -> list:
        if self._vocabulary is None:
            self._vocabulary = list(self.adapter.vocabulary() or [])
        return self._vocabulary

    @property
    def vocabulary_size(self) -> int:
        """Entries of the model's vocabulary (0 when it has none to show)."""
        return len(self._words())

    def word(self, token: int) -> str | None:
        """The vocabulary entry of `token`, None outside the vocabulary."""
        words = self._words()
        return words[token] if 0 <= token < len(words) else None

    def prediction(self, position: int) -> int:
        """The most probable next token at `position` (the logits stage's argmax, before a softcap)."""
        return int(self.tensor(self.logits_stage)[self._position(position)].argmax())

    def token_id(self, text: str) -> int:
        """The one token `text` names (module-level `token_id` with this pass's model)."""
        return token_id(self.adapter, text)

    @property
    def head_rows(self) -> list[str]:
        """The attention contexts a head sweep patches (each head's P·V), in forward order."""
        from tfdebug.sessions.patching import head_stages

        return head_stages(self.captures)

    @property
    def heads(self) -> int:
        """The most heads of any of `head_rows` (a head sweep's columns)."""
        from tfdebug.sessions.patching import head_count

        return head_count(self.captures, self.head_rows)

    def sweep(self, corrupt, progress=None, across: str = "position", align: str | None = None):
        """Patch every residual row × position (`across` "head": every head of every attention) of the pass on
        `corrupt` (these texts with `corrupt`'s in their place; `align`: their positions' pairs, by default
        `sessions.alignment`'s) with this pass's values: (Sweep, target, contrast), as
        `sessions.patching.predicted_sweep`."""
        from tfdebug.sessions.patching import predicted_sweep

        return predicted_sweep(self.patcher(corrupt, align), progress, across)

    def patch_one(self, corrupt, stage: str, position: int | None = None, head: int | None = None,
                  align: str | None = None):
        """This pass's `stage` (whole, at `position`, for `head`) put into the pass on `corrupt` (these texts with
        `corrupt`'s in their place; `align` as `sweep`'s) and that pass run on to its end: a
        `sessions.patch_one.PatchedPass`."""
        from tfdebug.sessions.patch_one import patch_one

        return patch_one(self.patcher(corrupt, align), stage, position, head)

    def patcher(self, corrupt, align: str | None = None):
        """A `sessions.patching.Patcher` of this pass's texts (clean) and `corrupt` (in their place); ReadoutError
        for a pass that keeps no typed text (a snapshot of tensors fed in)."""
        from tfdebug.sessions.patching import Patcher

        if not self.texts:
            raise ReadoutError("This pass keeps no typed text to run again, so it cannot be patched.")

        return Patcher(self.adapter, self.texts, {**self.texts, **dict(corrupt)}, align=align or None)

    def _position(self, position: int) -> int:
        """`position` (negative: from the end) as an index of the pass's tokens; ReadoutError outside them."""
        count = self.count
        if not -count <= position < count:
            raise ReadoutError(f"Position {position} is outside the pass's {count} tokens (0 … {count - 1}, or "
                               "negative from the end).")
        return position % count

    def _check_token(self, token: int | None) -> None:
        vocab = self.tensor(self.logits_stage).shape[-1]
        if token is not None and not 0 <= token < vocab:
            raise ReadoutError(f"Token id {token} is outside the vocabulary (0 … {vocab - 1}).")

    def tensor(self, name: str, row: int = 0) -> Tensor:
        """Stage `name`'s tensor at batch row `row`; ReadoutError when the capture budget did not keep it."""
        capture = self.captures[name]
        tensor = capture.tensor
        if tensor is None and self.load is not None and not (capture.recipe or capture.dropped):
            tensor = self.load(capture)
        if tensor is None or capture.recipe:
            raise ReadoutError(f"Stage {name} was not kept (the capture budget left it out), so the lens and the "
                               "attribution cannot read it: raise the budget and run again.")
        return _cut(tensor, row)

    def _check_readout(self) -> None:
        """The readout of the last residual stage at the last position is the logits stage."""
        x, logits = self.tensor(self.readout.stage)[-1:], self.tensor(self.logits_stage)[-1:]
        own = self.readout.logits(x) if not self.readout.softcap else \
            Readout(self.readout.norm, self.readout.head, self.readout.stage).logits(x)
        tolerance = READOUT_MATCH.get(logits.dtype, 1e-2) * max(float(logits.abs().max()), 1.0)
        if float((own.to(logits.device).double() - logits.double()).abs().max()) > tolerance:
            if self.load is not None:  # a snapshot's: the model here may not be the one it was captured with
                raise ReadoutError(f"{self.adapter.name} here does not give this snapshot's logits from its last "
                                   "residual stage: it is not the model the snapshot was captured with (or its head "
                                   "does more than its final norm and output embedding).")
            raise ReadoutError(f"{self.adapter.name}'s head does more than its final norm and output embedding, so "
                               "the lens would not show what the model predicts.")

    # ----- the lens ------------------------------------------------------------------------------------------
    def lens(self, positions: Sequence[int] | None = None, target: int | None = None, k: int = 5,
             row: int = 0, rows: Sequence[str] | None = None) -> LensGrid:
        """The lens at `positions` (all by default) for `rows` (every residual row by default)."""
        final = self.tensor("logits", row)
        count = final.shape[0]
        positions = list(range(count)) if positions is None else [self._position(p) for p in positions]
        self._check_token(target)
        names = list(rows) if rows is not None else self.rows
        for name in names:
            if name not in self.residuals:
                raise ReadoutError(f"{name} is not a residual stage of this pass; the lens reads {', '.join(self.rows)}.")
        with self.model():
            return lens_grid(self.readout, [(n, self.tensor(n, row)) for n in names], final, positions, target, k)

    # ----- the attribution -----------------------------------------------------------------------------------
    def attribute(self, target: int, contrast: int | None = None, position: int = -1, row: int = 0) -> Attribution:
        """The direct logit attribution of logit(target) − logit(contrast) at `position`."""
        with self.model():
            return self._attribute(target, contrast, position, row)

    def _attribute(self, target: int, contrast: int | None, position: int, row: int) -> Attribution:
        logits = self.tensor(self.logits_stage, row)
        position = self._position(position)
        for token in (target, contrast):
            self._check_token(token)
        diff = float(logits[position, target].double() - (logits[position, contrast].double()
                                                           if contrast is not None else 0.0))
        out = Attribution(position, target, contrast, diff)
        if self.readout.softcap:
            out.notes.append(f"The model caps its logits ({self.readout.softcap:g}·tanh(z / {self.readout.softcap:g}));"
                             " the terms add up to the logits before the cap.")
        at = [self.tensor(n, row)[position] for n in self.residuals]
        norm = FrozenNorm.of(self.readout.norm, at[-1])
        weight, bias = self.readout.unembedding()
        u = direction(weight, target, contrast)
        vectors: list[Tensor] = [at[0]]
        terms: list[tuple[str, str, int | None, int | None, str]] = [("embeddings", "embed", None, None, self.residuals[0])]
        for n, name in enumerate(self.residuals[1:], 1):
            added = at[n].double() - at[n - 1].double()
            parsed = parse_name(name)
            block = f"{parsed.stack}.{parsed.layer}.{parsed.block}"
            heads = None if parsed.block == "ffn" else self._heads(block, row, position, added)
            if heads is None:
                kind = "ffn" if parsed.block == "ffn" else "attn"
                vectors.append(added)
                terms.append((f"L{parsed.layer} {parsed.block}", kind, parsed.layer, None, name))
                continue
            for h, vector in enumerate(heads):
                vectors.append(vector)
                terms.append((f"L{parsed.layer} {parsed.block} H{h}", "head", parsed.layer, h, f"{block}.probs"))
            vectors.append(added - torch.stack(heads).sum(0))
            terms.append((f"L{parsed.layer} {parsed.block} bias", "attn_bias", parsed.layer, None, f"{block}.out"))
        values = project(norm, u, vectors)
        out.terms = [Term(label, kind, value, layer, head, stage)
                     for (label, kind, layer, head, stage), value in zip(terms, values)]
        if norm.bias is not None:
            out.terms.append(Term("final norm bias", "norm_bias", float(norm.bias @ u), stage=self.readout.norm_stage
                                  or ""))
        if bias is not None:
            b = bias.detach().double()
            out.terms.append(Term("unembedding bias", "head_bias",
                                  float(b[target] - (b[contrast] if contrast is not None else 0.0)),
                                  stage=self.logits_stage))
        return out

    def _heads(self, block: str, row: int, position: int, added: Tensor) -> list[Tensor] | None:
        """Each head's share of what attention block `block` adds at `position` (its merged context's slice through
        W^O), or None when the block cannot be split (no merged stage or W^O, or the heads do not add up to it)."""
        merged_name, module = f"{block}.merged", self.adapter.stage_module(f"{block}.out")
        context = self.captures.get(f"{block}.context")
        if module is None or merged_name not in self.captures or context is None:
            return None
        merged = self.tensor(merged_name, row)[position]
        heads = context.shape[1]
        if merged.shape[-1] % heads:
            return None
        width = merged.shape[-1] // heads
        masked = torch.zeros((heads + 1, merged.shape[-1]), dtype=merged.dtype, device=merged.device)
        for h in range(heads):
            masked[h, h * width:(h + 1) * width] = merged[h * width:(h + 1) * width]
        with torch.no_grad():
            through = module(masked[:, None, :])[:, 0].double()  # (heads + 1, d): each head, then the bias alone
        shares = [through[h] - through[heads] for h in range(heads)]
        scale = max(float(added.abs().max()), 1e-30)
        if float((torch.stack(shares).sum(0) + through[heads] - added.to(through.device)).abs().max()) > \
                SPLIT_MATCH * scale:
            return None
        return [s.to(added.device) for s in shares]


def token_id(adapter, text: str) -> int:
    """The id of the one token `text` names: `#123` for an id, else a vocabulary entry written exactly so, else
    the text the model's tokenizer reads as a single token (' Paris'); ReadoutError naming what it is instead."""
    vocabulary = adapter.vocabulary() or []
    if text.startswith("#") and text[1:].isdigit():
        token = int(text[1:])
        if vocabulary and token >= len(vocabulary):
            raise ReadoutError(f"Token id {token} is outside the vocabulary (0 … {len(vocabulary) - 1}).")
        return token
    if text in vocabulary:
        return vocabulary.index(text)
    tokenizer = getattr(adapter, "tokenizer", None)
    if tokenizer is not None:
        ids = tokenizer.encode(text, add_special_tokens=False)
        if len(ids) == 1 and ids[0] != _unknown_id(tokenizer):
            return int(ids[0])
        if len(ids) > 1:
            pieces = " ".join(repr(vocabulary[i]) if i < len(vocabulary) else f"#{i}" for i in ids)
            raise ReadoutError(f"{text!r} is {len(ids)} tokens ({pieces}); a target is one token: give one of them.")
    raise ReadoutError(f"{text!r} is not a token of {adapter.name}'s vocabulary; give a word it knows, or #ID.")


def _unknown_id(tokenizer) -> int | None:
    """The id a tokenizer gives a word it does not know (the tokenizer's, else its backend model's unk token)."""
    if getattr(tokenizer, "unk_token_id", None) is not None:
        return tokenizer.unk_token_id
    backend = getattr(tokenizer, "backend_tokenizer", None)
    unk = getattr(getattr(backend, "model", None), "unk_token", None)
    return backend.token_to_id(unk) if unk and backend is not None else None


def finished_why(session) -> Why:
    """The lens and attribution of a live session's finished pass (`DebugSession`); ReadoutError saying why there
    is none (a generation, a pass not run to its end): what a pass source's `why()` answers, here or on a server."""
    if getattr(session, "is_generation", False):
        raise ReadoutError("The lens and the attribution read one pass; a generation's steps are not read yet.")
    if not session.stepper.is_live:  # a backward's gradients, served as a pass
        raise ReadoutError("A backward's gradients have no lens or attribution: run the pass again to read them.")
    if session.stepper.alive:
        raise ReadoutError("The pass has not reached its logits yet: run it to the end first (F5).")
    return Why.of(session.adapter, session.stepper.history, session.tokens, session.texts)


def recorded_why(recording: "Recording", adapter=None) -> Why:
    """The lens and attribution of a replayed snapshot, read out with `adapter` or, when None, the model the snapshot
    names (`recording.model_name`) loaded here on the CPU in its dtype; ReadoutError saying why there is none (a
    backward's gradients, no model named, a model that cannot be opened here or whose readout does not give the
    snapshot's own logits). Its stages are read from the file as they are needed."""
    if recording.backward is not None:
        raise ReadoutError("A backward's gradients have no lens or attribution: open the forward pass's snapshot.")
    if adapter is None:
        adapter = recorded_model(recording)
    return Why.of(adapter, recording.captures, recording.tokens, recording.inputs, load=recording.tensor)


def recorded_model(recording: "Recording"):
    """The model a snapshot names, loaded here on the CPU in the snapshot's dtype (what `recorded_why` reads out
    with, and what patches its pass); ReadoutError, one sentence, when there is none or it cannot be opened."""
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.core.errors import TfdebugError

    spec = recording.model_name
    if not spec:
        raise ReadoutError("This snapshot names no model, so nothing here can read its residual stream out.")
    try:
        return load_adapter(spec, "cpu", recording.dtype)
    except TfdebugError as error:
        raise ReadoutError(f"A snapshot's lens reads it out with the model it was captured with, {spec}, which "
                           f"cannot be opened here: {error}") from error


def finished_pass(adapter, **inputs) -> Why:
    """Run `adapter`'s model once on `inputs` (DebugSession's texts or prepared) and read its lens and
    attribution: what `tfdebug lens` and `tfdebug attribute` compute."""
    from tfdebug.sessions.session import DebugSession

    session = DebugSession(adapter, **inputs)
    captures, _ = session.capture_all(verify="never")
    return Why.of(adapter, captures, session.tokens, session.texts)
