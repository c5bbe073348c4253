"""Stage-level verification of a tapped Hugging Face pass against the unmodified model in eager attention.

First the input: the tensors the pass was given are compared with an encoding made apart from
tfdebug's path (`hf_inputs.check_inputs`; the adapter makes it with transformers' own
AutoTokenizer of the folder), and a difference in ids, mask or token types fails the check,
naming the first position that differs.

Then the stages: the tapped pass keeps (by reference, on its device) the tensors of the stages
that the unmodified model can also return: the `logits` stage, every layer's attention
probabilities (`output_attentions`) and every layer's input (`output_hidden_states`). The
reference is the same model run with its own eager attention in the same dtype: the same
kernels in the same order, so the stages are equal bit for bit (max |Δ| 0 on every architecture
tfdebug adapts, in float32 and in bfloat16).
So equal means exact: when any compared tensor differs, a second eager pass measures the
model's own run-to-run noise on each one (zero where its kernels are deterministic, as on a CPU)
and that is its tolerance, said in the verification line (`tolerance_rule`). The first stage over
it is named; the stages of the pass nothing compares are counted unchecked, so checked +
unchecked = the stages the pass ran.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Mapping

import torch
from torch import Tensor, nn

from tfdebug.adapters.base import Verification
from tfdebug.adapters.hf.attention import implementation
from tfdebug.adapters.hf.inpass import InPass
from tfdebug.adapters.hf.reference import Compared, bounded, reference_attention
from tfdebug.core.phrases import Phrase

def tolerance_rule(dtype: torch.dtype, noise: float | None) -> str:
    """The tolerance in words, for the verification line: exact, or the model's own run-to-run noise."""
    name = str(dtype).removeprefix("torch.")
    if not noise:
        return Phrase("exact (the same model's eager pass in {dtype}, same kernels: equal bit for bit)",
                      id="hf.tolerance_exact", dtype=name)
    return Phrase("the model's own run-to-run noise in {dtype} (two eager passes differ by up to {noise})",
                  id="hf.tolerance_noise", dtype=name, noise=f"{noise:.1e}")


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
        checks["logits"] = (plan.logits_key, None, False)
    return checks


@contextmanager
def stages_kept(taps: Mapping[str, nn.Module], names, into: dict, fired: dict | None = None) -> Iterator[None]:
    """While the block runs, the output of each named tap lands in `into` (detached; the last call wins), and
    the name of every tap that runs in `fired` (in the order they run). In a backward's forward
    (`attention.planes_being_noted()`) nothing is kept: no verification reads it, and every layer's probabilities
    held to the end of the forward would be the backward's largest cost (`sessions.backward.run_backward` gives
    the adapter's references back as they were before it anyway)."""
    from tfdebug.adapters.hf.planes import planes_being_noted

    handles = []
    names = set() if planes_being_noted() else set(names)

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
    modules = list(model.modules())
    hooks = [(set(m._forward_hooks), set(m._forward_pre_hooks), m.__dict__.get(_FLAG)) for m in modules]
    try:
        with implementation(model, "eager"):
            yield
    finally:
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


DIFF_BLOCK = 1 << 22  # elements compared at once: a block's float32 difference, 16 MB, whatever the stage's size


def _diff(seen: Tensor, expected: Tensor, keep: Tensor | None) -> float:
    """max |seen − expected| over the positions `keep` marks (all when None), block by block along the
    positions: the logits of an 8,192-token pass over a 49k vocabulary are 1.6 GB, and a difference made whole
    (then its absolute value, then the masked copy) held two more of them at once."""
    if seen.shape != expected.shape and seen.numel() == expected.numel() and seen.shape[-1] == expected.shape[-1]:
        seen = seen.reshape(expected.shape)  # OPT's FFN works on (B·T, D)
    if seen.shape != expected.shape:
        return float("inf")
    if not seen.numel():
        return 0.0
    expected = expected.detach()
    if seen.dim() < 2:
        return float(torch.sub(seen.float(), expected.float().to(seen.device)).abs_().max())
    mask = keep.to(seen.device).bool() if keep is not None and seen.shape[:2] == keep.shape else None
    step = max(1, DIFF_BLOCK // max(1, seen[0, 0].numel()))
    worst = []
    for b in range(seen.shape[0]):
        for t in range(0, seen.shape[1], step):
            block = torch.sub(seen[b, t:t + step].float(), expected[b, t:t + step].float().to(seen.device)).abs_()
            if mask is not None:
                block.masked_fill_(~mask[b, t:t + step].reshape(-1, *([1] * (block.dim() - 1))), 0.0)
            worst.append(block.max())
            del block
    return float(torch.stack(worst).max())  # one fetch; a NaN anywhere stays NaN


def _reference(model: nn.Module, kwargs: dict, plan, seen: Mapping, twice: bool = False):
    """The unmodified model's eager outputs, and what the bounded reference compared (`hf_reference`): its
    probabilities are compared head block by head block as they are made and never gathered. Without it
    (`bounded` false) transformers gathers `output_attentions` and `compared` is None."""
    with torch.no_grad(), eager(model):
        if bounded(plan):
            compared = Compared()
            with reference_attention(model, plan, seen, compared, twice):
                return model(**kwargs, output_hidden_states=True), compared
        return model(**kwargs, output_attentions=True, output_hidden_states=True), None


def _expected(reference, key: str, index: int | None) -> Tensor | None:
    values = reference
    for part in key.split("."):  # a tower's output of a two-tower model: "vision_model_output.attentions"
        values = getattr(values, part, None)
    if index is None or values is None:
        return values
    return values[index] if index < len(values) else None


def _primary(reference) -> Tensor:
    for key in ("logits", "logits_per_image"):  # a two-tower model (CLIP) returns its similarities
        out = getattr(reference, key, None)
        if out is not None:
            return out
    return reference.last_hidden_state


def verify_stages(model: nn.Module, kwargs: dict, plan, seen: Mapping[str, Tensor], output: Tensor,
                  all_stages, inputs: str = "", inputs_against: str = "", in_pass: InPass | None = None) -> Verification:
    """Compare the kept stages and the output with the unmodified model's eager outputs on the same input.

    Equal is exact: when anything differs, a second eager pass measures the model's own run-to-run noise
    on each compared tensor (zero where its kernels are deterministic, as on a CPU) and that is the
    tolerance. `all_stages`: the stages the pass ran (what is not checked is unchecked); `inputs`: "" when
    the input equals the independent reference named by `inputs_against`, else the sentence that says where
    it differs (the verification then fails).

    `in_pass`: what the check made in the pass found (`inpass`). Where it followed every attention site and found
    each exactly equal to the model's own function on the pass's query, key and value, the second pass compares
    only the layer inputs and the logits, and the probabilities take their difference from it: with every layer's
    input equal to the unmodified model's, its query, key and value are the model's too. Anything short of that,
    or any stage that then differs, is checked the whole way (each probabilities plane made again and compared)."""
    if in_pass is not None and in_pass.complete and not any(in_pass.diffs.values()):
        probs = {name for names in plan.probs.values() for name in names}
        quick = _verified(model, kwargs, plan, {k: v for k, v in seen.items() if k not in probs}, output, all_stages,
                          inputs, inputs_against, {k: in_pass.diffs[k] for k in seen if k in probs})
        if quick.ok:
            return quick
    return _verified(model, kwargs, plan, seen, output, all_stages, inputs, inputs_against)


def _verified(model: nn.Module, kwargs: dict, plan, seen: Mapping[str, Tensor], output: Tensor, all_stages,
              inputs: str, inputs_against: str, found: Mapping[str, float] | None = None) -> Verification:
    """`verify_stages`'s comparison: `found` gives the probabilities stages' differences already measured (their
    stages are then not in `seen`, and the second pass makes no probabilities plane to compare)."""
    found = found or {}
    reference, compared = _reference(model, kwargs, plan, seen)
    keep = kwargs.get("attention_mask")
    checks = checked_stages(plan)
    rows = []  # (name, key, index, mask) of each stage compared, in the order the pass ran them
    for name in [n for n in all_stages if n in checks and (n in seen or n in found)]:
        key, index, probabilities = checks[name]
        if name in found:
            rows.append((name, key, index, None))
        elif probabilities and compared is not None:
            if name in compared.diffs:
                rows.append((name, key, index, None))
        elif _expected(reference, key, index) is not None:
            rows.append((name, key, index, None if probabilities else keep))

    def diff(row, ref, blocks) -> float:
        name, key, index, mask = row
        if name in found:
            return found[name]
        if blocks is not None and checks[name][2]:
            return blocks.diffs[name]
        return _diff(seen[name], _expected(ref, key, index), mask)

    diffs = [diff(row, reference, compared) for row in rows]
    out_diff = _diff(output, _primary(reference), keep)
    noise, out_noise = [0.0] * len(rows), 0.0
    if out_diff > 0 or any(d > 0 for d in diffs):  # exact unless the model itself does not repeat exactly
        again, twice = _reference(model, kwargs, plan, seen, twice=True)

        def spread(row) -> float:
            name, key, index, mask = row
            if name in found:
                return 0.0  # the same function on the same inputs (only an all-exact check in the pass is taken)
            if twice is not None and checks[name][2]:
                return twice.noise.get(name, 0.0)
            return _diff(_expected(again, key, index), _expected(reference, key, index), mask)

        noise = [spread(row) for row in rows]
        out_noise = _diff(_primary(again), _primary(reference), keep)
        del again
    first, first_diff = next(((rows[i][0], d) for i, d in enumerate(diffs) if not d <= noise[i]), (None, 0.0))
    checked = tuple(row[0] for row in rows)
    done = set(checked)
    unchecked = tuple(n for n in all_stages if n not in done)
    return Verification(max_abs_diff=out_diff, tolerance=out_noise, checked=checked, unchecked=unchecked,
                        first_mismatch=first, mismatch_diff=first_diff, diffs=tuple(diffs), tolerances=tuple(noise),
                        input_problem=inputs, inputs_against=inputs_against,
                        tolerance_rule=tolerance_rule(_primary(reference).dtype, max(noise + [out_noise])))
