"""Each expert's output where it runs (`ffn.each_expert`), for every mixture-of-experts architecture:
computed here again from the expert weights, summed with the routing weights into the model's own
experts output, zero for the tokens that did not choose an expert, and an edit flows downstream."""

from __future__ import annotations

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.sessions.session import DebugSession

PROMPT = {"prompt": "the cat sat on the mat I love you"}
MOE = [a for a in hf_archs.ARCHITECTURES if "each_expert" in a.shows]


def _by_hand(experts, x, e):
    """Expert e of a fused gate/up experts module on tokens x: down(act(x·W_gate) ⊙ x·W_up), from its weights."""
    gate, up = torch.nn.functional.linear(x, experts.gate_up_proj[e]).chunk(2, dim=-1)
    return torch.nn.functional.linear(experts.act_fn(gate) * up, experts.down_proj[e])


@pytest.fixture(scope="module", params=MOE, ids=[a.model_type for a in MOE])
def moe(request):
    model = hf_archs.build(request.param)
    session = DebugSession(wrap(model, hf_tiny.word_tokenizer()), PROMPT)
    captures, _ = session.capture_all()
    return request.param, model, session, {c.name: c for c in captures}


def test_each_expert_is_its_own_output_for_the_tokens_that_chose_it(moe):
    arch, model, session, by_name = moe
    layers = [n.removesuffix(".each_expert") for n in by_name if n.endswith(".each_expert")]
    assert layers and session.verification.ok
    for prefix in layers:
        each, summed = by_name[f"{prefix}.each_expert"].tensor, by_name[f"{prefix}.experts"].tensor
        routing = by_name[f"{prefix}.routing"].tensor
        tokens, n_experts, width = each.shape
        assert routing.shape == (tokens, n_experts) and by_name[f"{prefix}.each_expert"].info.axes == (
            "token", "expert", "model")
        chosen = routing != 0
        assert (each[~chosen] == 0).all() and (each[chosen].abs().sum(-1) > 0).all()
        # The routing weights times each expert's output are the experts module's own sum.
        assert torch.allclose((routing.unsqueeze(-1) * each).sum(1), summed.reshape(tokens, width), atol=1e-6)
        path = by_name[f"{prefix}.each_expert"].info.source
        experts = next(m for n, m in model.named_modules() if n.endswith("mlp.experts") and
                       n.split(".")[-3] == prefix.split(".")[1])
        if hasattr(experts, "gate_up_proj") and not hasattr(experts, "gate_up_proj_bias"):
            x = by_name[f"{prefix}.norm"].tensor.reshape(tokens, width)
            for e in range(n_experts):
                rows = chosen[:, e].nonzero().flatten()
                assert torch.allclose(each[rows, e], _by_hand(experts, x[rows], e), atol=1e-6), (arch.model_type, e)
        else:
            assert arch.model_type == "gpt_oss", path  # biased, clamped SwiGLU: checked by the sum above


def test_an_edited_expert_output_flows_into_the_experts_sum(moe):
    arch, model, session, by_name = moe
    prefix = next(n.removesuffix(".each_expert") for n in by_name if n.endswith(".each_expert"))
    edited = DebugSession(session.adapter, PROMPT)
    stepper = edited.stepper
    try:
        stepper.start()
        stepper.wait()
        stepper.run_to(f"{prefix}.each_expert")
        stepper.wait()
        stepper.replace(torch.zeros_like(stepper.current.tensor))
        stepper.run_to(f"{prefix}.experts")
        stepper.wait()
        assert (stepper.current.tensor == 0).all()
    finally:
        edited.close()
    assert hf_tiny.no_hooks_left(model)
