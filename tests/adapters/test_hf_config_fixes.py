"""Architectures real checkpoints ship that tfdebug refused or saved wrongly: a switched-off sliding window
(Qwen2-MoE configs give `"sliding_window": 0` with `use_sliding_window: false`), and Gemma 3's per-head
q/k norms, which read (batch, head, query, head_dim)."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.adapters.hf.config import check_config
from tfdebug.adapters.registry import load_adapter
from tfdebug.core.errors import ModelLoadError
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import open_snapshot, save_snapshot
from tfdebug.sessions.session import DebugSession

PROMPT = {"prompt": "the cat sat on the mat"}


@pytest.mark.parametrize("window", [{"sliding_window": 0, "use_sliding_window": False},
                                    {"sliding_window": None, "use_sliding_window": False},
                                    {"sliding_window": 4096, "use_sliding_window": False},
                                    {"sliding_window": 0}])
def test_a_switched_off_sliding_window_is_not_hostile(window):
    check_config({"model_type": "qwen2_moe", **window}, "config.json")


def test_a_real_window_out_of_range_is_still_refused():
    with pytest.raises(ModelLoadError, match="'sliding_window' as -1"):
        check_config({"model_type": "mistral", "sliding_window": -1}, "config.json")


def test_qwen2_moe_as_shipped_loads_and_verifies(tmp_path):
    arch = hf_archs.BY_TYPE["qwen2_moe"]
    shipped = dataclasses.replace(arch, config={**arch.config, "sliding_window": 0, "use_sliding_window": False})
    folder = hf_tiny.save_folder(hf_archs.build(shipped), tmp_path / "qwen2_moe")
    session = DebugSession(load_adapter(f"hf:{folder}"), PROMPT)
    session.capture_all(verify="now")
    assert session.verification.ok


def test_gemma3_q_and_k_norms_name_their_axes_and_the_pass_saves(tmp_path):
    model = hf_archs.build(hf_archs.BY_TYPE["gemma3_text"])
    session = DebugSession(wrap(model, hf_tiny.word_tokenizer()), PROMPT)
    captures, _ = session.capture_all(verify="now")
    by_name = {c.name: c for c in captures}
    tokens = len(session.tokens["prompt"])
    for role, axis in (("q", "query"), ("k", "key")):
        norm = by_name[f"dec.0.self_attn.{role}_norm"]
        assert norm.info.axes == ("batch", "head", axis, "head_dim")
        assert norm.shape[2] == tokens and norm.shape[1] == (4 if role == "q" else 2)
    assert session.verification.ok
    path = tmp_path / "gemma3.safetensors"
    save_snapshot(Recording.from_session(session, captures), path)
    with open_snapshot(path) as reopened:
        stored = reopened.tensor(reopened["dec.0.self_attn.q_norm"])
        assert torch.equal(stored, by_name["dec.0.self_attn.q_norm"].tensor)
        assert reopened["dec.0.self_attn.q_norm"].info.axes == ("batch", "head", "query", "head_dim")


def test_qwen3_norms_keep_the_token_axis_first():
    """Qwen 3 norms each head before the transpose: (batch, query, head, head_dim)."""
    session = DebugSession(wrap(hf_archs.build(hf_archs.BY_TYPE["qwen3"]), hf_tiny.word_tokenizer()), PROMPT)
    captures, _ = session.capture_all(verify="never")
    norm = {c.name: c for c in captures}["dec.0.self_attn.q_norm"]
    assert norm.info.axes == ("batch", "query", "head", "head_dim") and norm.shape[1] == len(session.tokens["prompt"])


def test_latent_attention_shows_the_rotary_split_and_the_decompressed_k_and_v():
    """DeepSeek-V3: the query's parts without and with rotary positions, the shared rotary key, and K_nope and V
    cut from the decompressed kv, each a stage; V is what attention reads, and a replaced V flows downstream."""
    model = hf_archs.build(hf_archs.BY_TYPE["deepseek_v3"])
    adapter = wrap(model, hf_tiny.word_tokenizer())
    session = DebugSession(adapter, PROMPT)
    captures, _ = session.capture_all(verify="now")
    by_name = {c.name: c for c in captures}
    attn = "dec.0.self_attn"
    assert by_name[f"{attn}.q_nope"].shape == by_name[f"{attn}.q_pe"].shape == (1, 4, 6, 4)
    assert by_name[f"{attn}.k_pe"].shape == (1, 1, 6, 4)
    assert by_name[f"{attn}.v"].info.kind == "v_proj" and by_name[f"{attn}.v"].shape == (1, 4, 6, 8)
    assert torch.equal(by_name[f"{attn}.v"].tensor, by_name[f"{attn}.v_split"].tensor)
    assert torch.equal(by_name[f"{attn}.k_nope"].tensor, by_name[f"{attn}.k_rotary"].tensor[..., :4])
    assert torch.equal(by_name[f"{attn}.q_nope"].tensor, by_name[f"{attn}.q_rotary"].tensor[..., :4])
    assert session.plan.names() == [c.name for c in captures] and session.verification.ok
    # the formulas say what DeepSeek's code does: V arrives per head (no view), only the _pe parts rotate
    assert by_name[f"{attn}.v_split"].info.formula == ("V as attention reads it: the (B, H, T, d_v) heads cut from "
                                                       "kv, unchanged")
    assert by_name[f"{attn}.v_split"].info.inputs == (f"{attn}.v",) and not by_name[f"{attn}.v_split"].info.ops
    assert by_name[f"{attn}.q_rotary"].info.formula == "[q_nope | RoPE(q_pe, pos)] per head"
    assert by_name[f"{attn}.k_rotary"].info.inputs == (f"{attn}.k_nope", f"{attn}.k_pe")

    handle = adapter.plan.taps[f"{attn}.v"].register_forward_hook(lambda module, args, output: output * 0)
    try:
        zeroed = {c.name: c for c in DebugSession(adapter, PROMPT).capture_all(verify="never")[0]}
    finally:
        handle.remove()
    assert float(zeroed[f"{attn}.context"].tensor.abs().max()) == 0.0
