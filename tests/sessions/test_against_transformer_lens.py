"""Attribution and patching against TransformerLens 4 (the bench's `peers` extra; skipped where it is not
installed): on the bundled pretrained tiny GPT-2 and a random GPT-2, TransformerLens's own `logit_attrs` of every
head and its residual (`resid_pre`) and head-output (`attn_head_out_all_pos`) patching utilities give the numbers
tfdebug gives. TransformerLens runs the unmodified Hugging Face model through its bridge, with the final norm's
weight folded into W_U (`enable_compatibility_mode`) and the value biases left in each head (`fold_value_biases=
False`: tfdebug's per-head term carries its own b_V through W^O, as the head's output does)."""

from __future__ import annotations

import pytest
import torch

from tests.adapters.hf_tiny import gpt2, save_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.patching import Patcher
from tfdebug.sessions.why import finished_pass

bridge_module = pytest.importorskip("transformer_lens.model_bridge")
patching = pytest.importorskip("transformer_lens.patching")
transformers = pytest.importorskip("transformers")

CLEAN, CORRUPT = "the cat is on the mat =", "the dog is on the mat ="


@pytest.fixture(scope="module", params=["pretrained", "random"])
def case(request, tmp_path_factory):
    if request.param == "pretrained":
        from tfdebug.adapters.bundled import bundled_folder

        folder = bundled_folder("tiny-gpt2")
        clean, corrupt = CLEAN, CORRUPT
    else:
        folder = save_folder(gpt2(), tmp_path_factory.mktemp("gpt2"))
        clean, corrupt = "the cat sat on the mat", "the apple sat on the mat"
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder)).eval()
    bridge = bridge_module.TransformerBridge.boot_transformers(str(folder), hf_model=model, tokenizer=tokenizer)
    bridge.enable_compatibility_mode(disable_warnings=True, fold_value_biases=False)
    ids = {text: tokenizer(text, return_tensors="pt")["input_ids"] for text in (clean, corrupt)}
    return folder, bridge, ids, clean, corrupt


def test_every_head_s_attribution_equals_transformer_lens_logit_attrs(case):
    folder, bridge, ids, clean, _ = case
    with torch.no_grad():
        logits, cache = bridge.run_with_cache(ids[clean])
    target = int(logits[0, -1].argmax())
    contrast = int(logits[0, -1].argsort()[-2])
    stack, labels = cache.stack_head_results(layer=-1, pos_slice=-1, return_labels=True)
    theirs = cache.logit_attrs(stack, tokens=torch.tensor([target]), incorrect_tokens=torch.tensor([contrast]),
                               pos_slice=-1).flatten().tolist()
    why = finished_pass(load_adapter(f"hf:{folder}"), texts={"prompt": clean})
    ours = [value for _, values in sorted(why.attribute(target, contrast, -1).heads().items()) for value in values]
    assert len(ours) == len(theirs) == len(labels)
    assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-4)


def _metric(target: int, contrast: int):
    return lambda logits: logits[0, -1, target] - logits[0, -1, contrast]


def test_residual_and_head_patching_equal_transformer_lens_patching(case):
    folder, bridge, ids, clean, corrupt = case
    patcher = Patcher(load_adapter(f"hf:{folder}"), {"prompt": clean}, {"prompt": corrupt})
    target = int(patcher.logits(patcher.clean)[0, -1].argmax())
    contrast = int(patcher.logits(patcher.corrupt)[0, -1].argmax())
    if contrast == target:
        contrast = int(patcher.logits(patcher.clean)[0, -1].argsort()[-2])
    with torch.no_grad():
        _, clean_cache = bridge.run_with_cache(ids[clean])
        resid = patching.get_act_patch_resid_pre(bridge, ids[corrupt], clean_cache, _metric(target, contrast))
        heads = patching.get_act_patch_attn_head_out_all_pos(bridge, ids[corrupt], clean_cache,
                                                             _metric(target, contrast))
    sweep = patcher.sweep(target, contrast, -1)
    # TransformerLens's resid_pre of layer L is tfdebug's row L (the embeddings, then each block's output).
    for ours, theirs in zip(sweep.patched, resid.tolist()):
        assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-4)
    head_sweep = patcher.head_sweep(target, contrast, -1)
    for ours, theirs in zip(head_sweep.patched, heads.tolist()):
        assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-4)
