"""GenerationSession: a generation run as a sequence of passes, one per token, stepped like one pass.

The whole generation runs in the Stepper's one worker loop, so Step, Continue and
breakpoints work inside every step as in a single pass. Each step's stages are named
`gen.{t}.{stage}` (core.names parses the prefix; the navigator groups by step). Step 0
feeds the prompt (after the encoder, for a translator); step t feeds the token chosen
at step t − 1. The token stream that grows (the translator's 'tgt') holds the prompt
and every token chosen so far; a step's stages label their axes with a slice of it
(`tgt[3:4]` for the new token's query, `tgt[0:4]` for the keys so far).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Mapping, Sequence

import torch

from tfdebug.adapters.base import ModelAdapter, Prepared
from tfdebug.sessions.session import SessionTexts, layout_of
from tfdebug.core.budget import FIRST_FIT, KeepPolicy
from tfdebug.core.errors import StepperStateError
from tfdebug.core.layout import PassLayout
from tfdebug.core.memory import release_freed_memory
from tfdebug.core.model_lock import forward_lock
from tfdebug.core.names import GEN_PREFIX, parse_name, parse_token_ref, token_ref
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture, Recorder
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.models.generate import StepDecoder, generate, text_of
from tfdebug.models.sampling import Choice, DecodingSettings


@dataclass(frozen=True)
class TokenEntry:
    """One token of the strip: its text, the step that feeds it (None once nothing feeds it) or chose it,
    and, for a generated token, its probability and the likeliest alternatives (text, probability)."""

    text: str
    step: int | None
    generated: bool
    probability: float | None = None
    alternatives: tuple[tuple[str, float], ...] = ()


def generation_inputs(adapter: ModelAdapter, texts: Mapping[str, str]) -> dict[str, str]:
    """What Generate starts from: `texts`, except the opening preset, which becomes the adapter's
    generation texts (a place with something to predict)."""
    return adapter.generation_texts() if dict(texts) == adapter.default_texts() else dict(texts)


#: the oldest generation's threshold while a generation runs: never reached in practice
_YOUNG_ONLY = 1 << 30
_young = threading.Lock()
_young_runs: list[tuple[int, int, int]] = []  # the thresholds before the first of the generations running now


@contextmanager
def young_collections() -> Iterator[None]:
    """While generations run, Python's automatic collections walk the young generations only: a full collection
    walks every object of the process and every capture so far (up to a few hundred ms each on a 135M model,
    more often as the captures grow). The thresholds are put back when the last running generation ends (a
    finished, failed or stopped one); nothing is frozen, so garbage made in the meantime is collected as usual
    afterwards (the window's start-up freeze, `ui.workers.gui_gc`, is left as it is)."""
    with _young:
        if not _young_runs:
            before = gc.get_threshold()
            gc.set_threshold(before[0], before[1], _YOUNG_ONLY)
            _young_runs.append(before)
        else:
            _young_runs.append(_young_runs[0])
    try:
        yield
    finally:
        with _young:
            before = _young_runs.pop()
            if not _young_runs:
                gc.set_threshold(*before)


class GenerationSession(SessionTexts):
    """Generate from `texts` with an adapter's model, step by step under a Stepper.

    `settings` say how tokens are chosen; `use_cache=False` reruns the whole sequence
    every step (what the KV cache saves); `max_capture_bytes` is a capture budget for the
    whole generation (tfdebug.core.budget), `keep` the KeepPolicy of what it keeps. The API matches DebugSession's where it can
    (`plan`, `layout`, `stepper`, `tokens`, `texts`, `title`, `close`).
    """

    is_generation = True  # the window's Next Token and Generation dock apply
    #: a generation's steps are not checked in the pass (`DebugSession.in_pass`): the tests check them against
    #: `generate()`
    in_pass = ""

    def __init__(self, adapter: ModelAdapter, texts: Mapping[str, str] | None = None,
                 settings: DecodingSettings | None = None, stages: Sequence[str] | None = None,
                 use_cache: bool = True, max_capture_bytes: int | None = None, keep: KeepPolicy = FIRST_FIT):
        self.adapter = adapter
        self.settings = settings or DecodingSettings()
        self.stages = stages
        self.use_cache = use_cache
        self.prepared: Prepared = adapter.prepare(dict(texts) if texts is not None else adapter.default_texts())
        self.verification = None
        self.choices: list[Choice] = []
        #: called with each Choice as it is made, in the thread generating (the CLI prints tokens)
        self.on_choice: Callable[[Choice], None] | None = None
        self._decoder: StepDecoder | None = None
        self._stream = ""
        self._words: list[str] = []
        # The step running now, by tap: its stages' descriptions so far (what this step has run, as `_source` reads
        # it); and the last earlier step each tap ran at. Both are looked up at every stage of every step, so each is
        # one dict keyed by the tap's name (a scan over the steps there grew with the generation: quadratic in its
        # tokens).
        self._labels: dict[str, StageInfo] = {}
        self._last_step: dict[str, int] = {}
        self._bases: dict[str, StageInfo] = {}  # step stage name -> the tap's own description
        # The plan's descriptions of steps 2 onwards, by step and tap, with the tap's description they were made from:
        # a step's stage whose tap and shape are the plan's takes the plan's description (what `step_info` and
        # `_source` would make again, at every stage of every step). `_planned_now`: the step running now's.
        self._planned: dict[int, dict[str, tuple[StageInfo, Capture]]] = {}
        self._planned_now: dict[str, tuple[StageInfo, Capture]] = {}
        self._where = (0, 0, 0)  # (step, start, stop) of the step running now
        self.plan = Plan(self._plan())
        self.layout: PassLayout = layout_of(adapter, self.plan)
        self.stepper = Stepper(adapter.module, self._run, plan=self.plan.names(), stages=stages,
                               relabel=self._relabel, max_capture_bytes=max_capture_bytes, keep=keep)

    # ----- running -----------------------------------------------------------------------

    def verify_in_pass(self) -> None:
        """No verdict: a generation's steps are not checked in the pass (`DebugSession.verify_in_pass`)."""
        return None
    def _begin(self) -> StepDecoder:
        decoder = self.adapter.step_decoder(self.prepared, self.use_cache)
        self._decoder, self._stream = decoder, decoder.stream
        typed = self.prepared.tokens.get(decoder.stream, [])
        prompt = [decoder.token(i) for i in decoder.prompt_ids]
        self._words = list(typed) if len(typed) == len(prompt) else prompt
        self.choices = []
        self._forget_labels()
        return decoder

    def run(self) -> list[Choice]:
        """Generate once, without pausing or recording (unless a Recorder is attached); the choices."""
        return self._run()

    def _run(self, settings: DecodingSettings | None = None) -> list[Choice]:
        decoder = self._begin()
        with young_collections():
            return generate(decoder, settings or self.settings, on_step=self._on_step, on_choice=self._on_choice)

    def _on_step(self, step: int, start: int, count: int) -> None:
        """Before step `step` runs (once per step, in order): what the step before ran becomes its taps' last step."""
        self._last_step.update(dict.fromkeys(self._labels, self._where[0]))
        self._labels, self._planned_now = {}, self._planned.get(step, {})
        self._where = (step, start, start + count)

    def _on_choice(self, choice: Choice) -> None:
        assert self._decoder is not None  # generate() calls back after _begin made the decoder
        self._words.append(self._decoder.token(choice.id))
        self.choices.append(choice)
        if self.on_choice is not None:
            self.on_choice(choice)

    def _relabel(self, info: StageInfo, tensor) -> StageInfo:
        """The description of a tap's stage at the step running now: `gen.{t}.` name, token slices."""
        name = info.name
        out = self._labels.get(name)
        if out is not None:
            return out
        planned = self._planned_now.get(name)
        if planned is not None and planned[0] is info and planned[1].shape == tensor.shape:
            out = planned[1].info
        else:
            step, _, stop = self._where
            out = step_info(info, step, self._stream, stop, tuple(tensor.shape),
                            tuple(self._source(base, name, step) for base in info.inputs))
            self._bases[out.name] = info
        self._labels[name] = out  # what `_source` reads for a stage not planned
        return out

    def _forget_labels(self) -> None:
        self._labels, self._last_step = {}, {}

    def _source(self, base: str, own: str, step: int) -> str:
        """The stage (of this step or an earlier one) that input `base` of stage `own` reads at `step`, the step
        running now.

        With a KV cache a step does not run what a full pass runs: attention reads the cache (K and V
        of every token so far), not this step's split; what enters the cache is this step's split, or
        its projection where no split is tapped (K is rotated inside the model on its way in);
        cross-attention's K and V come from step 0 (computed once).
        """
        ran = self._labels  # what this step has run so far
        block, _, stage = base.rpartition(".")
        role = stage[:1] if stage in ("k_split", "v_split", "k_rotary", "v_rotary") else ""
        cache = f"{block}.cache_{role}"
        candidates = []
        if role and cache in ran and own != cache:
            candidates.append(cache)
        candidates.append(base)
        if role:  # the cache's own input, when this step's rotary or split is not tapped
            candidates += [f"{block}.{role}_split", f"{block}.{role}"]
        found = next((name for name in candidates if name in ran), None)
        if found is not None:
            return f"{GEN_PREFIX}.{step}.{found}"
        earlier = self._last_step.get(base)  # `base` has not run at this step: else `found` is a stage
        return f"{GEN_PREFIX}.{step if earlier is None else earlier}.{base}"

    def _plan(self) -> list[Capture]:
        """Steps 0 and 1 as run (greedy, shapes only); later steps as step 1, its axes over all tokens one longer each."""
        probe = replace(self.settings, sample=False, max_new_tokens=min(2, self.settings.max_new_tokens),
                        stop_at_eos=False)
        with forward_lock(self.adapter.model_root), torch.no_grad(), \
                Recorder(self.adapter.module, self.stages, keep=False, relabel=self._relabel) as rec:
            self._run(probe)
        decoder = self._decoder
        assert decoder is not None  # the probe's run made it
        prompt = len(decoder.prompt_ids)
        captures = list(rec.captures)
        step_one = [c for c in captures if parse_name(c.name).step == 1]
        planned: dict[int, dict[str, tuple[StageInfo, Capture]]] = {}
        # Step t feeds the token at position prompt + t − 1; it runs while the stream has room for one more.
        for step in range(2, self.settings.max_new_tokens):
            if prompt + step >= decoder.capacity:
                break
            for c in step_one:
                shape = _grown(c, self._stream, prompt + 1, step - 1)
                base = self._bases[c.name]
                info = step_info(base, step, self._stream, prompt + step, shape,
                                 tuple(_later_step(name, step) for name in c.info.inputs))
                captures.append(Capture(info, shape, c.dtype, c.device))
                planned.setdefault(step, {})[base.name] = (base, captures[-1])
        self.choices, self._bases, self._planned = [], {}, planned
        self._forget_labels()
        self._words = list(self._words[:prompt])
        return captures

    # ----- what the window and the CLI read ---------------------------------------------------
    @property
    def tokens(self) -> dict[str, list[str]]:
        """The prepared streams, with the growing one holding the prompt and every token chosen so far."""
        out = {k: list(v) for k, v in self.prepared.tokens.items()}
        if self._stream:
            out[self._stream] = list(self._words)
        return out

    @property
    def generated(self) -> list[str]:
        """The tokens generated so far, without a final <eos>."""
        return text_of(self._decoder, self.choices) if self._decoder is not None else []

    def decoded(self, choices: list[Choice] | None = None) -> str:
        """The generated text (`choices`, default all so far, without a final <eos>) as the model's
        tokenizer decodes it."""
        if self._decoder is None:
            return ""
        choices = list(self.choices if choices is None else choices)
        return self._decoder.decode([c.id for c in choices if c.id != self._decoder.eos_id])

    def word(self, choice: Choice) -> str:
        """The text of a chosen token."""
        assert self._decoder is not None  # a choice comes from a generation begun
        return self._decoder.token(choice.id)

    def is_eos(self, choice: Choice) -> bool:
        """Whether `choice` is the decoder's end-of-sequence token."""
        return self._decoder is not None and choice.id == self._decoder.eos_id

    def entries(self) -> list[TokenEntry]:
        """The token strip: the prompt (fed at step 0), then each chosen token with its probability."""
        # Copies first: the worker thread appends while the window reads (zip stops at the shorter).
        choices, words, decoder = list(self.choices), list(self._words), self._decoder
        prompt = len(decoder.prompt_ids) if decoder is not None else len(words) - len(choices)
        out = [TokenEntry(w, 0, False) for w in words[:prompt]]
        for choice, word in zip(choices, words[prompt:]):
            assert decoder is not None  # a choice comes from a generation begun
            alternatives = tuple((decoder.token(i), p) for i, p in choice.top)
            out.append(TokenEntry(word, choice.step, True, choice.probability, alternatives))
        return out

    # ----- stepping by token ------------------------------------------------------------------
    def first_stage(self, step: int) -> str | None:
        """The name of step `step`'s first stage in the plan, or None when generation never gets there."""
        return self._firsts().get(step)

    def _firsts(self) -> dict[int | None, str]:
        firsts: dict[int | None, str] = {}
        for name in self.plan.names():
            firsts.setdefault(parse_name(name).step, name)
        return firsts

    def current_step(self) -> int | None:
        """The generation step of the stage at the cursor, or None (nothing shown, or a stage before the steps)."""
        current = self.stepper.current
        return parse_name(current.name).step if current is not None else None

    def next_token(self) -> None:
        """Run to the end of this step: pause where the next step reads the token just chosen (or at the end)."""
        step = self.current_step()
        self.run_to_token((step if step is not None else -1) + 1)

    def run_to_token(self, n: int) -> None:
        """Run until generated token `n` (1 = the first) has been chosen: pause at the step that feeds it.

        A token that is never fed (the last one, or after <eos>) runs the pass to its end.
        Already captured: the cursor moves there through history.
        """
        if n < 1:
            raise StepperStateError("Tokens are counted from 1: the first generated token is token 1.",
                                    id="generation.token_from_1")
        name = self.first_stage(n)
        if name is not None and (self.stepper.alive or self.stepper.position_of(name) is not None):
            self.stepper.run_to(name)  # planned steps after <eos> never run: an ended pass goes to its end below
        elif self.stepper.alive:
            self.stepper.continue_()  # to the end (or a breakpoint on the way)
        elif self.stepper.history:
            self.stepper.goto(len(self.stepper.history) - 1)

    def goto_step(self, step: int) -> None:
        """Show the first stage of `step`: through history when it has run, else run to it."""
        name = self.first_stage(step)
        if name is None:
            raise StepperStateError("This generation has no step {step}.", id="generation.no_step", step=step)
        self.stepper.run_to(name)

    def capture_all(self) -> tuple[list[Capture], Any]:
        """Generate without pausing; the captures (filtered by `stages`) and the choices."""
        with forward_lock(self.adapter.model_root), torch.no_grad(), \
                Recorder(self.adapter.module, self.stages, relabel=self._relabel) as rec:
            output = self._run()
        return rec.captures, output

    def close(self) -> None:
        """Stop the pass, forget its history and free the memory it held."""
        self.stepper.stop()
        self.stepper.forget_history()
        release_freed_memory()


def step_info(info: StageInfo, step: int, stream: str, stop: int, shape: tuple[int, ...],
              inputs: tuple[str, ...] | None = None) -> StageInfo:
    """A tap's description at generation step `step`, after which `stream` holds `stop` tokens; its
    `inputs` the stages given (default: the tap's own, at this step).

    Every axis over the growing stream ends at the newest token: an axis of n positions
    labels the last n (the new token alone as a query with a cache; every token so far
    as the cached keys, or everywhere without a cache).
    """
    prefix = f"{GEN_PREFIX}.{step}."
    tokens = {}
    for axis, ref in info.tokens.items():
        n = shape[info.axes.index(axis)] if axis in info.axes and len(shape) == len(info.axes) else stop
        tokens[axis] = token_ref(stream, stop - n, stop) if ref == stream else ref
    return replace(info, name=prefix + info.name, tokens=tokens,
                   inputs=inputs if inputs is not None else tuple(prefix + i for i in info.inputs))


def _later_step(name: str, step: int) -> str:
    """Step 1's input `name` at a later `step`: this step's stage, or a stage of step 0 (computed once)."""
    prefix = f"{GEN_PREFIX}.1."
    return f"{GEN_PREFIX}.{step}.{name[len(prefix):]}" if name.startswith(prefix) else name


def _grown(capture: Capture, stream: str, stop: int, more: int) -> tuple[int, ...]:
    """A step-1 stage's shape `more` steps later: axes spanning all `stop` tokens of the stream grow with it."""
    out = list(capture.shape)
    for axis, ref in capture.info.tokens.items():
        i = capture.info.axes.index(axis)
        if parse_token_ref(ref)[0] == stream and out[i] == stop:
            out[i] += more
    return tuple(out)
