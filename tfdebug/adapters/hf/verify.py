"""Stage-level verification of a tapped Hugging Face pass against the unmodified model in eager attention.

The tapped pass keeps (by reference, on its device) the tensors of the stages that the
unmodified model can also return: the `logits` stage, every layer's attention
probabilities (`output_attentions`) and every layer's input (`output_hidden_states`). The
reference is the same model run with its own eager attention in the same dtype, so the
tolerances are tight: probabilities 1e-5, logits and hidden states 1e-4 (relative to their
largest magnitude above 1) in float32. The first stage that differs is named; every other
stage is reported as unchecked.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Mapping

import torch
from torch import Tensor, nn

from tfdebug.adapters.base import Verification
from tfdebug.adapters.hf.attention import model_configs

_BASE = {torch.float16: 1e-2, torch.bfloat16: 5e-2, torch.float64: 1e-9}


def tolerance(reference: Tensor, float32: float) -> float:
    """`float32` in float32 (× the largest magnitude when above 1); the half-precision rounding otherwise."""
    base = _BASE.get(reference.dtype, float32)
    scale = float(reference.detach().abs().max()) if reference.numel() else 1.0
    return base * max(1.0, scale)


def checked_stages(plan) -> dict[str, tuple[str, int | None, float]]:
    """Stage name → (what the model returns for it, index, float32 tolerance) for every stage the plan can check."""
    checks: dict[str, tuple[str, int | None, float]] = {}
    for key, names in plan.probs.items():
        for i, name in enumerate(names):
            checks[name] = (key, i, 1e-5)
    for key, names in plan.layer_inputs.items():
        for i, name in enumerate(names):
            checks.setdefault(name, (key, i, 1e-4))
    if "logits" in plan.taps:
        checks["logits"] = ("logits", None, 1e-4)
    return checks


@contextmanager
def stages_kept(taps: Mapping[str, nn.Module], names, into: dict) -> Iterator[None]:
    """While the block runs, the output of each named tap lands in `into` (detached; the last call wins)."""
    handles = []

    def keeper(name):
        def hook(module, args, output):
            into[name] = output.detach()
        return hook

    try:
        for name in names:
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
                  all_stages) -> Verification:
    """Compare the kept stages and the output with the unmodified model's eager outputs on the same input."""
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
        key, index, float32 = checks[name]
        values = getattr(reference, key, None)
        expected = values if index is None else (values[index] if values is not None and index < len(values)
                                                 else None)
        if expected is None or name not in seen:
            continue
        diff = _diff(seen[name], expected, keep if key != "attentions" and "attentions" not in key else None)
        checked.append(name), diffs.append(diff), tolerances.append(tolerance(expected, float32))
        if first is None and not diff <= tolerances[-1]:
            first, first_diff = name, diff
    unchecked = tuple(n for n in all_stages if n not in set(checked))
    return Verification(max_abs_diff=out_diff, tolerance=tolerance(expected_out, 1e-4), checked=tuple(checked),
                        unchecked=unchecked, first_mismatch=first, mismatch_diff=first_diff,
                        diffs=tuple(diffs), tolerances=tuple(tolerances))
