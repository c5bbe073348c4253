"""The backward pass, stage by stage: an objective on a pass's logits, `backward()`, and every stage's gradient.

`run_backward(adapter, prepared, objective)` runs the tapped forward with gradients on, computes the objective
from the logits stage's own tensor and backpropagates it. Each stage's gradient (∂objective/∂stage) arrives
through a hook on the stage's tensor (`core.gradients.GradientRecorder`) in backward order: the logits first,
the embeddings last. The attention planes are computed whole for this pass (autograd differentiates them), but
neither they nor their gradients are kept: the recorder keeps the forward planes as recipes and their gradients
as gradient recipes (`core.gradient_planes`), equal bit for bit to autograd's when looked at, and what autograd
saves of them (the probabilities) is made again when its backward reads it (`core.recompute`). The model's parameters are left
as they were (their `.grad` is restored); their gradient norms are kept per parameter.

Objectives (`Objective`): the next-token cross-entropy over the prompt (the training loss; padding ignored as
transformers' loss ignores it), the cross-entropy at one position, logit(target) − logit(contrast) at a
position, or the sum of one stage's whole tensor (`stage_sum`: the stages after it get no gradient).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Sequence

import torch
from torch import Tensor

from tfdebug.core.errors import InputError
from tfdebug.core.gradients import GRADIENT_PREFIX, GradientRecorder
from tfdebug.core.model_lock import forward_lock
from tfdebug.core.recorder import Capture
from tfdebug.sessions.backward_peak import check_backward_fits, parameter_bytes

OBJECTIVES = ("next_token", "position", "logit_diff", "stage_sum")


@dataclass(frozen=True)
class Objective:
    """What is differentiated: `kind` one of OBJECTIVES; `position` for position and logit_diff (negative counts
    from the end); `target` and `contrast` token ids for logit_diff (`contrast` None: the target's logit);
    `stage` the stage whose whole tensor stage_sum sums."""

    kind: str = "next_token"
    position: int = -1
    target: int | None = None
    contrast: int | None = None
    stage: str = ""

    def describe(self) -> str:
        """The objective in words."""
        if self.kind == "next_token":
            return "next-token cross-entropy over the prompt"
        if self.kind == "position":
            return f"next-token cross-entropy at position {self.position}"
        if self.kind == "stage_sum":
            return f"sum of {self.stage}"
        return f"logit(#{self.target})" + (f" − logit(#{self.contrast})" if self.contrast is not None else "") + \
            f" at position {self.position}"


@dataclass
class BackwardPass:
    """A backward pass: the objective's value, each stage's gradient in backward order, the forward's captures,
    each parameter's gradient norm, and the first stage (in backward order) whose gradient is not finite."""

    objective: Objective
    loss: float
    gradients: list[Capture]
    forward: dict[str, Capture]
    parameters: dict[str, float] = field(default_factory=dict)
    first_nonfinite: str | None = None
    #: the peak in bytes stated before it ran (`sessions.backward_peak.check_backward_fits`); None without a plan
    peak: int | None = None

    def gradient(self, name: str) -> Tensor:
        """Stage `name`'s gradient: a tensor, or for an attention plane a `core.gradient_planes.GradientPlane`
        (indexing it computes the heads and rows asked for; `.materialize()` the whole plane)."""
        tensor = next(c.tensor for c in self.gradients if c.name == name)
        assert tensor is not None  # a backward's gradient keeps its tensor
        return tensor

    def layer_norms(self) -> dict[str, float]:
        """The parameters' gradient norm per layer ('layer 3'; 'encoder layer 3' and 'decoder layer 3' where the
        model has both stacks), or the module path of what is outside layers."""
        out: dict[str, float] = {}
        for name, norm in self.parameters.items():
            stack_word, layer, _ = parameter_place(name)
            if layer is not None:
                key = f"{stack_word} layer {layer}" if stack_word and self._two_stacks() else f"layer {layer}"
            else:
                key = name.rsplit(".", 1)[0]
            out[key] = math.sqrt(out.get(key, 0.0) ** 2 + norm ** 2)
        return out

    def _two_stacks(self) -> bool:
        words = {parameter_place(n)[0] for n in self.parameters if parameter_place(n)[1] is not None}
        return {"encoder", "decoder"} <= words

    def module_norms(self) -> list[tuple[str, int | None, str, float]]:
        """The parameters' gradient norm per place and module, in the model's order: rows (stack, layer, module,
        norm), `stack` the stage names' stack the parameters belong to ('enc', 'dec', … ; '' when the pass's
        stages do not tell), `layer` the layer's index (None outside layers), `module` one of MODULES
        (`parameter_place`), `norm` √Σ‖∂L/∂p‖² over the parameters there."""
        from tfdebug.core.names import parse_name

        layered: list[str] = []  # the stacks with layers, in the pass's order
        for name in self.forward:
            parsed = parse_name(name)
            if parsed.layer is not None and parsed.stack not in layered:
                layered.append(parsed.stack)
        places = {name: parameter_place(name) for name in self.parameters}
        # layers under no stack word (a vision-language model's language layers) are the stack no word names
        words = {word for word, layer, _ in places.values() if layer is not None}
        unnamed = [stack for stack, word in (("dec", "decoder"), ("enc", "encoder")) if stack in layered
                   and word not in words]
        stacks: dict[str, str] = {}
        for name, (stack_word, layer, _) in places.items():
            stack = _stage_stack(stack_word, layered)
            if not stack and layer is not None and len(unnamed) == 1:
                stack = unnamed[0]
            stacks[name] = stack
        # a parameter outside the layers belongs with the layers it shares the longest module path with
        containers = {_container(name): stacks[name] for name, place in places.items() if place[1] is not None}
        squares: dict[tuple[str, int | None, str], float] = {}
        for name, norm in self.parameters.items():
            _, layer, module = places[name]
            stack = stacks[name] if layer is not None else _nearest(name, containers, stacks[name])
            key = (stack, layer, module)
            squares[key] = squares.get(key, 0.0) + norm ** 2
        return [(stack, layer, module, math.sqrt(total)) for (stack, layer, module), total in squares.items()]

    def gradient_captures(self) -> list[Capture]:
        """The gradients as captures in backward order, each described as ∂L/∂stage (a pass to replay or save)."""
        what = self.objective.describe()
        return [dataclasses.replace(c, info=dataclasses.replace(c.info, formula=f"{GRADIENT_PREFIX}{c.info.formula})   L = {what}"))
                for c in self.gradients]

    def manifest_entry(self, streams: dict[str, list[str]] | None = None) -> dict:
        """What a snapshot's manifest says of this backward pass (`io.recording.backward_doc`); with `streams` (the
        pass's token strings per stream) its summary too (`sessions.gradient_session.summary_of`: the saliency,
        which needs the forward's activations the snapshot does not keep, and the parameters' norms)."""
        from tfdebug.io.backward_summary import summary_fields
        from tfdebug.io.recording import backward_doc

        o = self.objective
        summary = None
        if streams is not None:
            from tfdebug.sessions.gradient_session import summary_of

            summary = summary_fields(summary_of(self, streams))
        return backward_doc(o.kind, o.describe(), self.loss, self.first_nonfinite,
                            position=o.position if o.kind in ("position", "logit_diff") else None, target=o.target,
                            contrast=o.contrast, summary=summary)

    def recording(self, session):
        """The gradients as a Recording of `session`'s pass (in backward order, the objective, the loss and the
        summary in its manifest): what `io.snapshot.save_snapshot` writes and a window replays."""
        from tfdebug.io.recording import Recording

        return dataclasses.replace(Recording.from_session(session, self.gradient_captures()),
                                   backward=self.manifest_entry(session.tokens))

    def saliency(self) -> list[tuple[float, float]] | None:
        """Per token of the first embedding stage along tokens with a gradient (forward order; an audio front end's
        stages, which run along a spectrogram's frames, are left to `frame_saliency`): (Σ gradient × embedding,
        ‖gradient × embedding‖₂) over the stage's other axes, batch row 0; None when no such stage has one."""
        capture = self.saliency_stage()
        return self._per_position(capture, "token") if capture is not None else None

    def saliency_stage(self) -> Capture | None:
        """The gradient `saliency` reads: the first embedding stage along tokens with a gradient, in forward order,
        outside an audio front end (the site of a stage along frames)."""
        audio = {parse_site(c.name) for c in self.gradients if "frame" in c.info.axes}
        return next((c for c in reversed(self.gradients) if c.info.kind == "embedding" and "token" in c.info.axes
                     and parse_site(c.name) not in audio and c.name in self.forward), None)

    def frame_saliency(self) -> list[tuple[float, float]] | None:
        """Per frame of a speech model's spectrogram: (Σ gradient × activation, ‖gradient × activation‖₂) over
        the channels of the first stage along frames with a gradient (Whisper's first convolution's output, one
        column per frame of the features: kernel 3, stride 1), batch row 0; None when no stage runs along frames."""
        for capture in reversed(self.gradients):
            if "frame" in capture.info.axes:
                return self._per_position(capture, "frame")
        return None

    def _per_position(self, capture: Capture, axis: str) -> list[tuple[float, float]] | None:
        """(Σ, ‖·‖₂) of gradient × activation of `capture` per index of `axis`, over its other axes, batch row 0."""
        if capture.name not in self.forward:
            return None
        gradient, activation = capture.tensor, self.forward[capture.name].tensor
        assert gradient is not None and activation is not None  # a backward keeps its tensors
        axes = list(capture.info.axes)
        product = gradient.double() * activation.double()
        if axes and axes[0] == "batch":
            product, axes = product[0], axes[1:]
        product = product.movedim(axes.index(axis), 0).reshape(product.shape[axes.index(axis)], -1)
        return list(zip(product.sum(-1).tolist(), product.norm(dim=-1).tolist()))


#: what a parameter belongs to, for the per-module gradient norms (`parameter_place`)
MODULES = ("embeddings", "attention", "cross_attention", "mlp", "norm", "head", "other")
_CROSS = ("encoder_attn", "cross_attn", "crossattention", "encdecattention")
_HEADS = ("lm_head", "proj_out", "classifier", "score", "pooler", "head", "qa_outputs")


def parameter_place(name: str) -> tuple[str, int | None, str]:
    """Where parameter `name` sits, read from its module path: (the stack word before its layer index,
    'encoder' or 'decoder' or ''; the layer index, None outside layers; its module, one of MODULES). A norm's
    weights are 'norm' wherever they are; inside a layer, a path through an attention module is 'attention'
    ('cross_attention' where it attends to another stack: Whisper's encoder_attn, T5's EncDecAttention), and
    everything else the feed-forward block's ('mlp': the experts and router too); outside layers, embeddings
    (token, position, patch, an audio front end's convolutions), the output head, or 'other'."""
    parts = name.lower().split(".")
    index = next((i for i, part in enumerate(parts[:-1]) if part.isdigit() and i > 0), None)
    before = parts[:index] if index is not None else parts[:-1]
    stack_word = next((w for w in reversed(before) if w in ("encoder", "decoder")), "")
    layer = int(parts[index]) if index is not None else None
    inside = parts[index + 1:] if index is not None else parts
    owner = inside[-2] if len(inside) >= 2 else (inside[-1] if inside else "")
    if re.search(r"norm|^ln(_|\d|f|$)", owner):
        module = "norm"
    elif layer is not None:
        path = ".".join(inside[:-1])
        if any(word in path for word in _CROSS):
            module = "cross_attention"
        elif "attn" in path or "attention" in path:
            module = "attention"
        else:
            module = "mlp"
    elif any("embed" in part or part in ("wte", "wpe") or part.startswith("conv") or part in
             ("cls_token", "mask_token", "register_tokens", "distillation_token") for part in inside):
        module = "embeddings"
    elif any(part in _HEADS for part in inside[:-1]) or (len(inside) == 1 and inside[0] in _HEADS):
        module = "head"
    else:
        module = "other"
    return stack_word, layer, module


def _container(name: str) -> str:
    """The module path that holds a layer's parameter's layers ('model.encoder.layers' of
    'model.encoder.layers.3.fc1.weight')."""
    parts = name.split(".")
    index = next(i for i, part in enumerate(parts[:-1]) if part.isdigit() and i > 0)
    return ".".join(parts[:index])


def _nearest(name: str, containers: dict[str, str], default: str) -> str:
    """The stack of the layers whose container shares the most leading module names with parameter `name`;
    `default` when none shares any, or two stacks share as many."""
    parts = name.split(".")[:-1]
    best, length, tied = default, 0, False
    for container, stack in containers.items():
        shared = 0
        for a, b in zip(parts, container.split(".")):
            if a != b:
                break
            shared += 1
        if shared > length:
            best, length, tied = stack, shared, False
        elif shared == length and stack != best:
            tied = True
    return default if tied or not length else best


def _stage_stack(stack_word: str, layered: list[str]) -> str:
    """The stage names' stack that a parameter under `stack_word` belongs to, among the pass's stacks with
    layers: the only one, or 'enc' / 'dec' by the word; '' when that does not tell."""
    if len(layered) == 1:
        return layered[0]
    wanted = {"encoder": "enc", "decoder": "dec"}.get(stack_word)
    return wanted if wanted in layered else ""


def parse_site(name: str) -> str:
    """The site of stage `name` ('src', 'enc.attn' …)."""
    from tfdebug.core.names import parse_name

    return parse_name(name).site


def stream_ids(adapter, prepared) -> tuple[Tensor, Tensor | None]:
    """The token ids the logits stage predicts along (batch, token) and their padding mask (1 = a real token)."""
    kwargs = prepared.kwargs
    if "decoder_input_ids" in kwargs:
        return kwargs["decoder_input_ids"], kwargs.get("decoder_attention_mask")
    if "input_ids" in kwargs:
        return kwargs["input_ids"], kwargs.get("attention_mask")
    if len(prepared.args) == 2:  # the reference translator: (src, tgt)
        return prepared.args[1], None
    raise InputError(f"{adapter.name} does not say which token ids its logits predict, so the next-token loss "
                     "cannot be formed; use a logit difference as the objective.")


def objective_value(objective: Objective, logits: Tensor, ids: Tensor | None, mask: Tensor | None) -> Tensor:
    """The objective of `logits` (batch, token, vocab), a scalar in float32 or wider."""
    if objective.kind != "next_token" and logits.dim() == 3 and not -logits.shape[1] <= objective.position < logits.shape[1]:
        raise InputError(f"Position {objective.position} is outside the pass's {logits.shape[1]} tokens.")
    if objective.kind == "logit_diff":
        if objective.target is None:
            raise InputError("A logit difference needs a target token.")
        # (batch, token, vocab), or (batch, classes) for a classifier (ViT): one row of logits
        row = (logits[0, objective.position % logits.shape[1]] if logits.dim() == 3 else logits[0]).float()
        for token in (objective.target, objective.contrast):
            if token is not None and not 0 <= token < row.shape[-1]:
                raise InputError(f"Token id {token} is outside the logits' {row.shape[-1]} entries.")
        return row[objective.target] - (row[objective.contrast] if objective.contrast is not None else 0.0)
    if ids is None or logits.dim() != 3:
        raise InputError("The next-token loss needs the pass's token ids and logits per token.")
    count = logits.shape[1]
    labels = ids.clone().to(logits.device)
    if mask is not None:
        labels[mask.to(labels.device) == 0] = -100
    if objective.kind == "position":
        position = objective.position % count
        if position + 1 >= count:
            raise InputError(f"Position {position} is the last token: nothing follows it to predict.")
        return torch.nn.functional.cross_entropy(logits[:, position].float(), labels[:, position + 1],
                                                 ignore_index=-100)
    if count < 2:
        raise InputError("The next-token loss needs at least two tokens.")
    vocab = logits.shape[-1]
    return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, vocab).float(),
                                             labels[:, 1:].reshape(-1), ignore_index=-100)


def stage_sum(stage: str, live: dict[str, Tensor], shown: dict, model: str) -> tuple[Tensor, Tensor | None]:
    """The sum of stage `stage`'s whole tensor in this forward (`live`: the recorder's), in float32 or wider, as
    the model's graph has it, and for a leaf the sum of the stage's own tensor (whose backward gives the stage its
    gradient; None where the first is that sum).
    A stage shown beside the model's tensors (a residual sum, q, k or v of a fused projection: `shown`, from
    `adapters.hf.hooks.sums_in_graph`) is a leaf: its sum is taken of the same values in the model's graph."""
    tensor = live.get(stage)
    if tensor is None:
        raise InputError(f"{stage!r} cannot be summed: it is not a stage of {model}'s pass with a gradient, or it "
                         "is an attention plane, which is not kept whole (sum a stage after it).")
    dtype = torch.float64 if tensor.dtype == torch.float64 else torch.float32
    joined = shown.get(id(tensor))
    if joined is None or joined[0] is not tensor:
        return tensor.sum(dtype=dtype), None
    return joined[1].sum(dtype=dtype), tensor.sum(dtype=dtype)


#: what an adapter keeps of its last forward for the verification of the pass (adapters.hf: each layer's
#: probabilities whole, by reference)
CHECKED = ("_kept", "_fired")


def _let_go_of_checked_stages(adapter, before: dict) -> None:
    """The adapter's references to the backward's forward for a verification, given back as they were `before`:
    the backward's forward is not the pass a verification checks, and every attention's probabilities, held
    by them, could not go as the backward passes each layer."""
    for key in CHECKED:
        if key in before:
            setattr(adapter, key, before[key])
        else:
            vars(adapter).pop(key, None)


def run_backward(adapter, prepared, objective: Objective = Objective(), stages=None,
                 plan: Sequence[Capture] | None = None, budget: int | None = None) -> BackwardPass:
    """One forward with gradients on and `objective`'s backward; every stage's gradient in backward order.
    With `plan` (the pass's stages) and `budget`, a backward whose peak would be over the budget is refused
    before it runs, and the planes autograd saves are kept where that fits the budget, else made again
    (`sessions.backward_peak.check_backward_fits`); without a plan they are made again."""
    recompute, peak = True, None
    if plan is not None:
        peak, recompute = check_backward_fits(plan, budget, parameter_bytes(adapter.module))
    from tfdebug.adapters.hf.planes import planes_noted
    from tfdebug.adapters.hf.hooks import sums_in_graph

    if objective.kind not in OBJECTIVES:
        raise InputError(f"Unknown objective {objective.kind!r}; the objectives are {', '.join(OBJECTIVES)}.")
    if objective.kind == "stage_sum" and not objective.stage:
        raise InputError("The sum of a stage needs the stage's name.")
    ids, mask = stream_ids(adapter, prepared) if objective.kind in ("next_token", "position") else (None, None)
    model = adapter.module
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    saved = {n: p.grad for n, p in params}
    for _, p in params:
        p.grad = None
    recorder = GradientRecorder(model, stages)
    checked = {key: vars(adapter)[key] for key in CHECKED if key in vars(adapter)}
    try:
        with forward_lock(adapter.model_root), torch.enable_grad(), planes_noted(recompute), \
                sums_in_graph() as shown, recorder:
            adapter.forward(prepared)
            _let_go_of_checked_stages(adapter, checked)
            if objective.kind == "stage_sum":
                loss, own = stage_sum(objective.stage, recorder.live, shown, adapter.name)
                if own is not None:
                    own.backward()  # the leaf's own gradient (ones) first, then through the model below it
            else:
                logits = recorder.live.get("head.raw", recorder.live.get("logits"))
                if logits is None:
                    raise InputError(f"{adapter.name}'s logits stage does not depend on its parameters' or inputs' "
                                     "values, so there is nothing to differentiate.")
                loss = objective_value(objective, logits, ids, mask)
            loss.backward()
        norms = {n: float(torch.linalg.vector_norm(p.grad, dtype=torch.float64)) for n, p in params
                 if p.grad is not None}
    finally:
        recorder.release()  # else the live tensors and their hooks hold each other (and the recorder) for good
        for n, p in params:
            p.grad = saved[n]
    first = recorder.first_nonfinite()  # read as each gradient arrived: no gradient plane is computed for it
    return BackwardPass(objective, float(loss.detach()), recorder.gradients,
                        {c.name: c for c in recorder.captures}, norms, first, peak)
