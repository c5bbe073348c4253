"""Stage-level verification of a tapped Hugging Face pass against the unmodified model in eager attention.

First the input: the tensors the pass was given are compared with an encoding made apart from
tfdebug's path (`hf_inputs.check_inputs`; the adapter makes it with transformers' own
AutoTokenizer of the folder), and a difference in ids, mask or token types fails the check,
naming the first position that differs.

Then the stages: the tapped pass keeps (by reference, on its device) the tensors of the stages
that the unmodified model can also return: the `logits` stage, every layer's attention
probabilities (`output_attentions`) and every layer's input (`output_hidden_states`). The
reference is the same model run with its own eager attention in the same dtype: the same
kernels in the same order, so the stages are expected to be equal bit for bit (measured on
every architecture tfdebug adapts: max |Δ| 0 in float32 and bfloat16, but for GPT-J in
bfloat16, 2.0e-3, one bfloat16 rounding step, because its own attention computes in float32).
The tolerance allows a few rounding steps of the dtype and nothing more (`tolerance`):
`ULPS[dtype]` × the dtype's machine epsilon × the stage's scale, where the scale is 1 for
probabilities and the largest magnitude (at least 1) for hidden states and logits. The first
stage over it is named; the stages of the pass nothing compares are counted unchecked, so
checked + unchecked = the stages the pass ran.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Mapping

import torch
from torch import Tensor, nn

from tfdebug.adapters.base import Verification
from tfdebug.adapters.hf.attention import model_configs
from tfdebug.core.phrases import Phrase

# Rounding steps (units of the dtype's machine epsilon, at the stage's scale) a stage may differ by from
# the same model's eager pass: same kernels, same dtype, so in practice none; a half-precision model whose
# own attention upcasts (GPT-J) differs by one.
ULPS = {torch.float64: 4, torch.float32: 4, torch.bfloat16: 2, torch.float16: 2}


def tolerance(reference: Tensor, probabilities: bool = False) -> float:
    """The largest |Δ| a stage may have from `reference`: ULPS × eps(dtype) × scale, where the scale is 1 for
    probabilities (they lie in [0, 1]) and the largest magnitude (at least 1) for hidden states and logits."""
    dtype = reference.dtype if reference.dtype.is_floating_point else torch.float32
    scale = 1.0 if probabilities or not reference.numel() else max(1.0, float(reference.detach().abs().max()))
    return ULPS.get(dtype, ULPS[torch.float32]) * torch.finfo(dtype).eps * scale


def tolerance_rule(dtype: torch.dtype) -> str:
    """The tolerance in words, for the verification line."""
    dtype = dtype if dtype in ULPS else torch.float32
    return Phrase("{n} rounding steps of {dtype} (eps {eps}) × the stage's scale", id="hf.tolerance_rule",
                  n=ULPS[dtype], dtype=str(dtype).removeprefix("torch."), eps=f"{torch.finfo(dtype).eps:.1e}")


def checked_stages(plan) -> dict[str, tuple[str, int | None, bool]]:
    """Stage name → (what the model returns for it, index, whether it is a probability) for every stage the
    plan can check."""
    checks: dict[str, tuple[str, int | None, bool]] = {}
    for key, names in plan.probs.items():
        for i, name in enumerate(names):
            checks[name] = (key, i, True)
    for key, names in plan.layer_inputs.items():
        for i, name in enumerate(names):
            checks.setdefault(name, (key, i, False))
    if "logits" in plan.taps:
        checks["logits"] = ("logits", None, False)
    return checks


@contextmanager
def stages_kept(taps: Mapping[str, nn.Module], names, into: dict, fired: dict | None = None) -> Iterator[None]:
    """While the block runs, the output of each named tap lands in `into` (detached; the last call wins), and
    the name of every tap that runs in `fired` (in the order they run)."""
    handles = []
    names = set(names)

    def keeper(name):
        def hook(module, args, output):
            if name in names:
                into[name] = output.detach()
            if fired is not None:
                fired[name] = None
        return hook

    try:
        for name in taps if fired is not None else names:
            handles.append(taps[name].register_forward_hook(keeper(name)))
        yield
    finally:
        for handle in handles:
            handle.remove()


_FLAG = "_output_capturing_hooks_installed"


@contextmanager
def eager(model: nn.Module) -> Iterator[None]:
    """The model runs with transformers' eager attention inside the block; its attention implementation,
    and its modules' hooks, are as before afterwards (in `finally`).

    transformers collects `output_attentions`/`output_hidden_states` with forward hooks it installs on
    the first such call and keeps; tfdebug leaves no hooks behind, so they go again (with the flag that
    says they are there, so that the model's own later calls install them anew).
    """
    configs = model_configs(model)
    before = [c._attn_implementation_internal for c in configs]
    modules = list(model.modules())
    hooks = [(set(m._forward_hooks), set(m._forward_pre_hooks), m.__dict__.get(_FLAG)) for m in modules]
    try:
        for config in configs:
            config._attn_implementation_internal = "eager"
        yield
    finally:
        for config, name in zip(configs, before):
            config._attn_implementation_internal = name
        for module, (post, pre, flag) in zip(modules, hooks):
            for key in set(module._forward_hooks) - post:
                module._forward_hooks.pop(key, None)
                module._forward_hooks_with_kwargs.pop(key, None)
                module._forward_hooks_always_called.pop(key, None)
            for key in set(module._forward_pre_hooks) - pre:
                module._forward_pre_hooks.pop(key, None)
                module._forward_pre_hooks_with_kwargs.pop(key, None)
            if flag is None:
                module.__dict__.pop(_FLAG, None)
            else:
                module.__dict__[_FLAG] = flag


def _diff(seen: Tensor, expected: Tensor, keep: Tensor | None) -> float:
    if seen.shape != expected.shape and seen.numel() == expected.numel() and seen.shape[-1] == expected.shape[-1]:
        seen = seen.reshape(expected.shape)  # OPT's FFN works on (B·T, D)
    if seen.shape != expected.shape:
        return float("inf")
    diff = (seen.float() - expected.detach().float().to(seen.device)).abs()
    if keep is not None and diff.dim() >= 2 and diff.shape[:2] == keep.shape:
        mask = keep.to(diff.device).bool().reshape(*keep.shape, *([1] * (diff.dim() - 2)))
        diff = torch.where(mask, diff, torch.zeros((), device=diff.device))
    return float(diff.max()) if diff.numel() else 0.0


def verify_stages(model: nn.Module, kwargs: dict, plan, seen: Mapping[str, Tensor], output: Tensor,
                  all_stages, inputs: str = "", inputs_against: str = "") -> Verification:
    """Compare the kept stages and the output with the unmodified model's eager outputs on the same input.

    `all_stages`: the stages the pass ran (what is not checked is unchecked); `inputs`: "" when the input
    equals the independent reference named by `inputs_against`, else the sentence that says where it
    differs (the verification then fails)."""
    with torch.no_grad(), eager(model):
        reference = model(**kwargs, output_attentions=True, output_hidden_states=True)
    expected_out = getattr(reference, "logits", None)
    if expected_out is None:
        expected_out = reference.last_hidden_state
    keep = kwargs.get("attention_mask")
    out_diff = _diff(output, expected_out, keep)
    checked, diffs, tolerances, first, first_diff = [], [], [], None, 0.0
    checks = checked_stages(plan)
    for name in [n for n in seen if n in checks]:  # in the order the pass ran them: the first that differs
        key, index, probabilities = checks[name]
        values = getattr(reference, key, None)
        expected = values if index is None else (values[index] if values is not None and index < len(values)
                                                 else None)
        if expected is None or name not in seen:
            continue
        diff = _diff(seen[name], expected, keep if key != "attentions" and "attentions" not in key else None)
        checked.append(name), diffs.append(diff), tolerances.append(tolerance(expected, probabilities))
        if first is None and not diff <= tolerances[-1]:
            first, first_diff = name, diff
    done = set(checked)
    unchecked = tuple(n for n in all_stages if n not in done)
    return Verification(max_abs_diff=out_diff, tolerance=tolerance(expected_out), checked=tuple(checked),
                        unchecked=unchecked, first_mismatch=first, mismatch_diff=first_diff,
                        diffs=tuple(diffs), tolerances=tuple(tolerances), input_problem=inputs,
                        inputs_against=inputs_against, tolerance_rule=tolerance_rule(expected_out.dtype))
