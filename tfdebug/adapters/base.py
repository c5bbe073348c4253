"""The model adapter protocol (Qt-free).

An adapter wraps one loaded model and says:
- what it takes: `inputs`, one `InputField` per named text (a translator's `src` and
  `tgt`, a language model's `prompt`, an encoder's `text`);
- how to turn texts into tensors: `prepare(texts) -> Prepared`, which also gives the
  token strings of every named stream and the words that became unknown tokens;
- how to run it: `forward(prepared)`, a call of the model during which its taps fire;
- what it is: `name`, `module` (the nn.Module whose Taps the Recorder finds), `device`,
  `dtype`, `config()` (JSON-able, stored in snapshot manifests);
- how to title its stacks and sites (`layer_titles`, `site_titles`), so the window can
  say "Encoder layer 0" or "Block 3" without parsing names;
- optionally, `verify(prepared, output)`: compare a tapped forward's output with the
  unmodified model's (adapters that add taps to someone else's model must).

Wrapping your own module takes a subclass of about thirty lines: see README
("Bring your own module").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import torch
from torch import nn

from tfdebug.core.errors import EmptyInputError, InputError, UnsupportedModelError
from tfdebug.core.readout import Readout, ReadoutError

if TYPE_CHECKING:
    from tfdebug.core.recorder import Capture
    from tfdebug.models.generate import StepDecoder


@dataclass(frozen=True)
class InputField:
    """One text a model takes: its key, a label and a placeholder for the window; `kind` "image" when the
    text is the path of a picture (the window offers a file picker and takes a dropped file)."""

    key: str
    label: str
    placeholder: str = ""
    required: bool = True
    kind: str = "text"


@dataclass
class Prepared:
    """Texts made ready for one forward: the model's arguments plus the token strings behind them.

    `args`/`kwargs` are what `ModelAdapter.forward` passes on; `tokens` maps each named
    stream (the keys that `StageInfo.tokens` refers to) to its token strings; `unknown`
    lists the typed words that had no token of their own. `notes` are the adapter's sentences
    about these inputs, each a `core.phrases.Phrase` (its English text; the window translates it).
    `options` are how the adapter made the tensors from the texts (a Hugging Face adapter keeps its
    tokenizer call there, for the reference check); two inputs with other options are other inputs.
    `image` is the picture a vision model saw (`core.images.InputImage`: its pixels and patch grid), else None.
    """

    texts: dict[str, str]
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    tokens: dict[str, list[str]] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    image: Any = None


@dataclass(frozen=True)
class StageCheck:
    """One stage's part of a stage-level verification."""

    #: "verified" (within tolerance), "mismatch" (beyond it) or "unchecked" (nothing compared it)
    verdict: str
    diff: float | None
    tolerance: float | None
    #: the first stage of the pass that differs (None: none does)
    first_mismatch: str | None
    #: what the check compared it with: "" the unmodified model's second pass, "attention" the model's own attention
    #: function on the same inputs, in the pass (`Verification.scope`)
    scope: str = ""


@dataclass(frozen=True)
class Verification:
    """How a tapped forward's output compares with the unmodified model's on the same input."""

    max_abs_diff: float
    tolerance: float
    #: a known cause of a mismatch, told with it ("" when none is known)
    cause: str = ""
    #: stage-level checks (adapters that can make them): the stages compared with what the unmodified
    #: model returns for them, the stages nothing checks, and the first stage that differs (None: none)
    checked: tuple[str, ...] = ()
    unchecked: tuple[str, ...] = ()
    first_mismatch: str | None = None
    mismatch_diff: float = 0.0
    #: for each stage in `checked`, in the same order: its max |Δ| and the tolerance it was held to
    diffs: tuple[float, ...] = ()
    tolerances: tuple[float, ...] = ()
    #: "" when the input the pass was given equals one made independently (by `inputs_against`, e.g.
    #: transformers' AutoTokenizer), else the sentence naming the first position that differs
    input_problem: str = ""
    #: what the input was checked against ("" when nothing checked it)
    inputs_against: str = ""
    #: the tolerances in words ("4 rounding steps of float32 …"; "" when the line gives only the number)
    tolerance_rule: str = ""
    #: what was compared: "" the pass against a second, unmodified pass of the model (its output and stages);
    #: "attention" each layer's attention against the model's own eager function on the same inputs, in the pass
    #: (`--verify attention`: `max_abs_diff` is then the largest stage's, and no output was compared)
    scope: str = ""

    def stage_check(self, name: str) -> StageCheck | None:
        """What the stage-level check found for stage `name`; None when this check compared no stages."""
        if not self.checked and not self.unchecked:
            return None
        if name in self.checked:
            i = self.checked.index(name)
            diff = self.diffs[i] if i < len(self.diffs) else float("nan")
            tol = self.tolerances[i] if i < len(self.tolerances) else float("nan")
            return StageCheck("verified" if diff <= tol else "mismatch", diff, tol, self.first_mismatch, self.scope)
        if name in self.unchecked:
            return StageCheck("unchecked", None, None, self.first_mismatch, self.scope)
        return None

    @property
    def ok(self) -> bool:
        return self.max_abs_diff <= self.tolerance and self.first_mismatch is None and not self.input_problem

    def describe(self) -> str:
        verdict = "verified" if self.ok else "MISMATCH"
        if self.input_problem:
            return f"{verdict}: the input is not what {self.inputs_against} makes. {self.input_problem}"
        if self.scope == "attention":
            return self._describe_attention(verdict)
        tolerance = f"tolerance: {self.tolerance_rule}" if self.tolerance_rule else f"tolerance {self.tolerance:.0e}"
        line = f"{verdict}: max |Δ| = {self.max_abs_diff:.1e} vs unmodified model ({tolerance})"
        if self.inputs_against:
            line += f"; input equal to {self.inputs_against}'s"
        if self.first_mismatch is not None:
            line += f"; the first stage that differs is {self.first_mismatch} (|Δ| = {self.mismatch_diff:.1e})"
        elif self.checked:
            line += (f"; {len(self.checked)} stages checked one by one against the model's own eager outputs "
                     f"(logits, every layer's attention probabilities and input)")
            worst = max(range(len(self.diffs)), key=self.diffs.__getitem__) if self.diffs else None
            if worst is not None and self.diffs[worst] == 0:
                line += ", each exactly equal"
            elif worst is not None:
                line += (f", each within its tolerance (the largest |Δ| {self.diffs[worst]:.1e}, at "
                         f"{self.checked[worst]})")
            line += f"; {len(self.unchecked)} unchecked ({len(self.checked) + len(self.unchecked)} stages)"
        return f"{line}. {self.cause}" if self.cause and not self.ok else line

    def _describe_attention(self, verdict: str) -> str:
        line = (f"{verdict} in the pass: every layer's attention against the model's own eager function on the same "
                f"query, key and value (tolerance: exact, bit for bit)")
        if self.inputs_against:
            line += f"; input equal to {self.inputs_against}'s"
        if self.first_mismatch is not None:
            line += f"; the first stage that differs is {self.first_mismatch} (|Δ| = {self.mismatch_diff:.1e})"
        else:
            line += f"; {len(self.checked)} stages (probabilities and context) checked, each exactly equal"
        return line + (f"; the logits and layer inputs were not compared ({len(self.unchecked)} stages unchecked: "
                       "--verify auto or always compares them with a second, unmodified pass)")


def max_abs_difference(output: Any, reference: Any) -> float:
    """Largest |Δ| between two model outputs (tensors, or tuples/lists/dicts of them); NaN where only one is NaN.

    Cells that are NaN (or the same infinity) in both count as equal; a structural difference (another type,
    length or shape) is infinite.
    """
    if isinstance(output, torch.Tensor) and isinstance(reference, torch.Tensor):
        if output.shape != reference.shape:
            return float("inf")
        a, b = output.detach().double(), reference.detach().to(output.device).double()
        same = (a == b) | (a.isnan() & b.isnan())  # also equal infinities
        diff = torch.where(same, 0.0, (a - b).abs()).nan_to_num(nan=float("inf"))
        return float(diff.max()) if diff.numel() else 0.0
    if isinstance(output, (tuple, list)) and isinstance(reference, (tuple, list)) and len(output) == len(reference):
        return max((max_abs_difference(a, b) for a, b in zip(output, reference)), default=0.0)
    if isinstance(output, Mapping) and isinstance(reference, Mapping) and output.keys() == reference.keys():
        return max((max_abs_difference(output[k], reference[k]) for k in output), default=0.0)
    try:
        return 0.0 if output is reference or bool(output == reference) else float("inf")
    except Exception:  # objects that do not compare
        return float("inf")


class ModelAdapter(ABC):
    """Everything the rest of tfdebug needs to know about one loaded model."""

    #: the spec it was loaded from (`demo`, `random`, a folder, `hf:FOLDER` …)
    name: str = ""
    #: which kind of adapter taps the model ('reference', 'hf', 'sdpa' …): a snapshot's
    #: manifest records it as `adapter`; the class name when a subclass leaves it empty
    kind: str = ""
    #: whether each layer's attention can be checked in the pass (`check_in_pass`, `tfdebug capture --verify
    #: attention`)
    checks_in_pass: bool = False
    #: the module whose Taps the Recorder attaches to
    module: nn.Module
    device: torch.device = torch.device("cpu")
    dtype: torch.dtype = torch.float32
    #: the texts the model takes, in the order the window shows them
    inputs: tuple[InputField, ...] = ()
    #: example inputs, each a full set of texts by field key; the first is what the window opens with
    presets: tuple[Mapping[str, str], ...] = ()
    #: texts a generation starts from, leaving something to predict (default: the presets with the
    #: fields that are not required left blank, e.g. the translator's target prefix)
    generation_presets: tuple[Mapping[str, str], ...] = ()
    #: "{title} {i}" names layer i of a stack; missing stacks use core's defaults
    layer_titles: Mapping[str, str] = {}
    #: titles of the stages outside layers, by site ('src', 'head' …)
    site_titles: Mapping[str, str] = {}
    #: titles of the layered stacks drawn as columns ('enc': 'Encoder')
    stack_titles: Mapping[str, str] = {}

    @property
    def adapter_kind(self) -> str:
        """`kind`, or the class name when the subclass does not set one."""
        return self.kind or type(self).__name__

    @abstractmethod
    def config(self) -> dict:
        """The model's configuration as JSON-able data (stored in snapshot manifests)."""

    @abstractmethod
    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        """Tensors and token strings for `texts` (keys from `inputs`); a typed InputError when unusable."""

    def prepare_batch(self, rows: Sequence[Mapping[str, str]]) -> Prepared:
        """Several sets of texts as one batch (adapters whose tokenizer pads do); InputError when this model
        takes one at a time."""
        if len(rows) == 1:
            return self.prepare(rows[0])
        raise InputError("{name} takes one set of texts at a time, not a batch.", id="adapter.no_batch",
                         name=self.name)

    def forward(self, prepared: Prepared) -> Any:
        """One call of the model on prepared inputs; its taps fire during it."""
        return self.module(*prepared.args, **prepared.kwargs)

    def step_decoder(self, prepared: Prepared, use_cache: bool = True) -> "StepDecoder":
        """A decoder that generates from `prepared` one token per step (see tfdebug.models.generate)."""
        raise InputError("{name} cannot generate text: it has no decoder to feed tokens to.", id="adapter.no_decoder",
                         name=self.name)

    def verify(self, prepared: Prepared, output: Any) -> Verification | None:
        """Compare `output` of a tapped forward with the unmodified model's; None when there is nothing to check."""
        return None

    def check_in_pass(self, mode: str) -> None:
        """From the next forward on, where the adapter can (`checks_in_pass`), check each layer's attention in the
        pass against the model's own function: `mode` "attention" (that check alone: nothing is held for a second
        pass; `verified_in_pass` says what it found), "whole" (the whole check, `verify`, follows the pass and
        takes the attention's verdict from it) or "" (off)."""

    def verified_in_pass(self, prepared: Prepared) -> Verification | None:
        """What the check in the last forward found (`check_in_pass`); None when it ran none or could not
        follow every attention site (the whole check, `verify`, can)."""
        return None

    def held_for_check(self, plan: Sequence[Capture], kept: Iterable[str]) -> frozenset[str]:
        """The stages the pass holds for `verify` beside what the capture budget keeps (`kept`): those it compares,
        held by reference to the pass's end when the whole check is to run; none when nothing is held."""
        return frozenset()

    def check_bytes(self, plan: Sequence[Capture]) -> int:
        """Bytes `verify` holds at most beyond the pass's own captures (its reference's outputs and working
        blocks), from the pass's plan; 0 when nothing is checked."""
        return 0

    #: texts are sent as a user's chat turn (an adapter whose `can_chat()` is true reads it in `prepare`)
    chat: bool = False

    def use_attention(self, kernel: str) -> None:
        """Run the following passes with attention kernel `kernel` ("eager", "sdpa" …), to compare kernels; an
        UnsupportedModelError when this model computes attention in its own code (it has no other kernel)."""
        if kernel != "eager":
            raise UnsupportedModelError("{name} computes its attention in its own code: it has no {kernel} kernel "
                                        "to compare with.", id="adapter.no_kernel", name=self.name, kernel=kernel)

    def can_chat(self) -> bool:
        """Whether texts can be sent as a chat turn (the model's tokenizer has a chat template)."""
        return False

    @property
    def model_root(self) -> nn.Module:
        """The model whose forward this adapter runs: one tfdebug forward of it at a time
        (core.model_lock). A wrapper around a user's model names the model, so two adapters
        of one model share the lock."""
        return self.module

    def vocabulary(self) -> list[str] | None:
        """The token string of every output id, in id order (what a logits stage's `vocab` axis
        indexes), or None when the model has no word list to offer."""
        return None

    def default_texts(self) -> dict[str, str]:
        """The first preset (what the window opens with), blank fields when there is none."""
        first = dict(self.presets[0]) if self.presets else {}
        return {f.key: str(first.get(f.key, "")) for f in self.inputs}

    def generation_texts(self) -> dict[str, str]:
        """What a generation starts from when the user gave no text: the first generation preset,
        else the first preset with its optional fields blank (the model then writes them)."""
        if self.generation_presets:
            first = dict(self.generation_presets[0])
            return {f.key: str(first.get(f.key, "")) for f in self.inputs}
        texts = self.default_texts()
        return {f.key: texts[f.key] if f.required else "" for f in self.inputs}

    def check_texts(self, texts: Mapping[str, str]) -> dict[str, str]:
        """`texts` restricted to this adapter's fields; InputError for an unknown key, EmptyInputError for a blank required one."""
        keys = {f.key for f in self.inputs}
        unknown = sorted(set(texts) - keys)
        if unknown:
            raise InputError("This model takes no input called '{key}'; its inputs are: {keys}.",
                             id="input.unknown_key", key=unknown[0], keys=", ".join(sorted(keys)))
        out = {f.key: str(texts.get(f.key, "")) for f in self.inputs}
        for f in self.inputs:
            if f.required and not out[f.key].strip():
                raise EmptyInputError("The {field} is empty: type at least one word.", id="input.empty",
                                      field=f.label.lower())
        return out

    def readout(self) -> "Readout":
        """How the model reads its residual stream out as logits (`core.readout.Readout`: its own final norm and
        unembedding), for the logit lens and the attribution; ReadoutError saying why a model has none."""
        raise ReadoutError(f"{self.name} does not say how it turns its residual stream into logits, so the lens "
                           "and the attribution are not available for it.")

    def stage_module(self, name: str) -> nn.Module | None:
        """The module whose output is stage `name` (an attention block's `out`: its W^O), or None when the stage
        is not one module's output or the adapter does not say."""
        return None

    def describe(self) -> str:
        return f"{self.name} on {self.device} ({str(self.dtype).removeprefix('torch.')})"
