"""A Hugging Face model's readout (its final norm, its output embedding and a logit softcap) and the module
behind a stage, found from the model's tap plan: the hooks that name each module's output as a stage."""

from __future__ import annotations

from torch import nn

from tfdebug.adapters.hf.builder import TapPlan
from tfdebug.adapters.hf.hooks import Output
from tfdebug.core.readout import Readout, ReadoutError

#: the streams of models whose logits stage is a language model's next-token (or decoder's) prediction
LANGUAGE_STREAMS = (("prompt",), ("src", "tgt"))


def stage_module(model: nn.Module, plan: TapPlan, name: str) -> nn.Module | None:
    """The module whose output the plan taps as stage `name`, or None."""
    path = next((h.path for h in plan.hooks if isinstance(h, Output) and h.stage == name), None)
    return model.get_submodule(path) if path is not None else None


def readout(model: nn.Module, plan: TapPlan, name: str) -> Readout:
    """The readout of `model` (named `name` in sentences): the module of its final norm stage and of its logits
    stage (`head.raw` before a softcap); ReadoutError for an encoder's or a vision model's head, or logits
    changed after the head in a way other than a softcap."""
    taps = plan.taps
    if plan.streams not in LANGUAGE_STREAMS or "logits" not in taps:
        raise ReadoutError(f"{name} has no language-model head reading its residual stream (an encoder's or a "
                           "vision model's output is not a next-token prediction), so the lens and the attribution "
                           "are not available for it.")
    head_stage, softcap = "logits", None
    if "head.raw" in taps:
        if taps["logits"].info.kind != "softcap":
            raise ReadoutError(f"{name} rescales its logits after its output embedding, which the lens does not "
                               "reproduce yet.")
        head_stage, softcap = "head.raw", float(model.config.get_text_config().final_logit_softcapping)
    head = stage_module(model, plan, head_stage)
    inputs = taps[head_stage].info.inputs
    if head is None or not inputs:
        raise ReadoutError(f"tfdebug cannot tell which module of {name} computes its logits.")
    norm_stage = inputs[0]
    if norm_stage in taps and taps[norm_stage].info.kind in ("layer_norm", "rms_norm"):
        norm, stage = stage_module(model, plan, norm_stage), (taps[norm_stage].info.inputs or ("",))[0]
        return Readout(norm, head, stage, norm_stage, softcap)
    return Readout(None, head, norm_stage, None, softcap)
