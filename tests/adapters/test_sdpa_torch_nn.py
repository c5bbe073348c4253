"""torch.nn Transformers through the SDPA adapter: DESIGN names, the unmodified numbers, switches restored."""

import threading

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from tfdebug.adapters.torch_nn.adapter import wrap
from tfdebug.adapters.torch_nn.patch import ORIGINAL_SDPA
from tfdebug.sessions.session import DebugSession
from tfdebug.core.errors import InputError
from tfdebug.core.stepper import FINISHED, PAUSED

D, H = 32, 4


def _inputs(batch_first=True, tgt=False):
    def make(text):
        words = text.split()
        g = torch.Generator().manual_seed(7)
        shape = (1, len(words), D) if batch_first else (len(words), 1, D)
        src = torch.randn(*shape, generator=g)
        if not tgt:
            return (src,), words
        out = torch.randn(*shape, generator=g)
        mask = nn.Transformer.generate_square_subsequent_mask(len(words))
        return (src, out, None, mask), {"src": words, "tgt": words}
    return make


def _session(module, make, text="the cat sat on the mat"):
    torch.manual_seed(0)
    return DebugSession(wrap(module, make), {"text": text})


def _verified(session):
    session.capture_all()
    assert session.verification.max_abs_diff <= 1e-5, session.verification.describe()
    return session


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("norm_first", [True, False])
def test_encoder_layer_is_enc_0_and_verified(batch_first, norm_first):
    layer = nn.TransformerEncoderLayer(D, H, 64, batch_first=batch_first, norm_first=norm_first)
    session = _verified(_session(layer, _inputs(batch_first)))
    names = session.plan.names()
    for stage in ("q", "k", "v", "q_split", "k_split", "v_split", "scores", "scaled", "probs", "context", "out",
                  "norm"):
        assert f"enc.0.attn.{stage}" in names
    assert {"enc.0.ffn.norm", "enc.0.ffn.hidden", "enc.0.ffn.out"} <= set(names)
    probs = session.plan.find("enc.0.attn.probs")
    assert probs.shape == (1, H, 6, 6) and probs.info.tokens == {"query": "text", "key": "text"}
    q = session.plan.find("enc.0.attn.q")
    assert q.info.kind == "q_proj" and q.shape == (6, 1, D)  # one third of the packed in_proj_weight


def test_transformer_encoder_with_padding_is_verified_on_every_position():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, 64, batch_first=True), 3,
                                    enable_nested_tensor=False)
    padded = torch.tensor([[False, False, False, False, True, True]])

    def make(text):
        (x,), words = _inputs()(text)
        return (x, None, padded), words

    session = _verified(_session(encoder, make))
    masked = session.capture_all()[0]
    by_name = {c.name: c for c in masked}
    assert "enc.2.attn.masked" in by_name and "enc.norm" not in by_name
    assert torch.isinf(by_name["enc.0.attn.masked"].tensor[0, :, :, 4:]).all()


def test_transformer_has_encoder_decoder_and_cross_attention_names():
    model = nn.Transformer(D, H, 2, 2, 64, batch_first=True)
    session = _verified(_session(model, _inputs(tgt=True)))
    names = session.plan.names()
    assert names[0] == "enc.0.attn.q" and names[-1] == "dec.norm" and "enc.norm" in names
    for stage in ("self_attn.masked", "self_attn.probs", "cross_attn.q", "cross_attn.probs", "cross_attn.out",
                  "ffn.out"):
        assert f"dec.1.{stage}" in names
    cross = session.plan.find("dec.0.cross_attn.probs")
    assert cross.info.tokens == {"query": "tgt", "key": "src"}
    masked = dict((c.name, c) for c in session.capture_all()[0])["dec.0.self_attn.masked"].tensor[0, 0]
    assert torch.isinf(masked.triu(1)[masked.triu(1) != 0]).all() and not torch.isinf(masked.tril()).any()


@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("batched", [True, False])
def test_multihead_attention_weights_and_output_match(need_weights, average, batched):
    mha = nn.MultiheadAttention(D, H)

    def make(text):
        words = text.split()
        x = torch.randn(len(words), 1, D, generator=torch.Generator().manual_seed(2))
        x = x if batched else x[:, 0]
        return (x, x, x, None, need_weights, None, average), words

    session = _verified(_session(mha, make))
    captures, output = session.capture_all()
    assert [c.name for c in captures][:3] == ["attn.q", "attn.k", "attn.v"] and captures[-1].name == "attn.out"
    if need_weights:
        assert output[1].shape == ((1,) if batched else ()) + ((6, 6) if average else (H, 6, 6))
    else:
        assert output[1] is None


def _fastpath_seen(module):
    seen = []
    module.register_forward_pre_hook(lambda m, a: seen.append(torch.backends.mha.get_fastpath_enabled()))
    return seen


def test_fast_path_is_off_only_while_tapped():
    layer = nn.TransformerEncoderLayer(D, H, 64, batch_first=True)
    session = _session(layer, _inputs())
    seen = _fastpath_seen(layer.self_attn)
    session.capture_all()  # tapped, then the verification's plain forward
    assert seen[-2:] == [False, True] and torch.backends.mha.get_fastpath_enabled()


class Explodes(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(D, H, 64, batch_first=True)
        self.armed = False

    def forward(self, x):
        y = self.layer(x)
        if self.armed:
            raise RuntimeError("boom after attention")
        return y


def test_every_switch_is_restored_when_the_forward_raises():
    module = Explodes()
    session = _session(module, _inputs())
    before = (torch.backends.mha.get_fastpath_enabled(), F.scaled_dot_product_attention, F._in_projection_packed,
              F._in_projection)
    module.armed = True
    with pytest.raises(RuntimeError, match="boom"):
        session.adapter.forward(session.prepared)
    after = (torch.backends.mha.get_fastpath_enabled(), F.scaled_dot_product_attention, F._in_projection_packed,
             F._in_projection)
    assert after == before and F.scaled_dot_product_attention is ORIGINAL_SDPA
    attention = module.layer.self_attn
    assert not attention._forward_hooks and not attention._forward_pre_hooks
    assert not module.layer.norm1._forward_hooks and not module.layer.linear2._forward_pre_hooks
    # the stepper reports the failure and leaves the switches as they were too
    stepper = session.stepper
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.continue_()
    assert stepper.wait() == "failed" and "boom" in stepper.error.message
    assert (torch.backends.mha.get_fastpath_enabled(), F.scaled_dot_product_attention) == before[:2]


def test_a_paused_pass_leaves_other_threads_with_the_fused_kernel():
    layer = nn.TransformerEncoderLayer(D, H, 64, batch_first=True)
    session = _session(layer, _inputs())
    stepper = session.stepper
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.run_to("enc.0.attn.probs")
    assert stepper.wait() == PAUSED and stepper.current.name == "enc.0.attn.probs"
    q = torch.randn(1, 2, 3, 4)
    result = {}
    thread = threading.Thread(target=lambda: result.update(out=F.scaled_dot_product_attention(q, q, q)))
    thread.start()
    thread.join()
    assert torch.equal(result["out"], ORIGINAL_SDPA(q, q, q))
    # a replaced softmax flows downstream: uniform attention, and the output no longer verifies
    probs = stepper.current.tensor
    stepper.replace(torch.full_like(probs, 1 / probs.size(-1)))
    stepper.continue_()
    assert stepper.wait() == FINISHED
    context = stepper.history[stepper.position_of("enc.0.attn.context")].tensor
    v = stepper.history[stepper.position_of("enc.0.attn.v_split")].tensor
    assert torch.allclose(context, v.mean(-2, keepdim=True).expand_as(context), atol=1e-6)
    assert not session.verify(stepper.output).ok
    assert F.scaled_dot_product_attention is ORIGINAL_SDPA and torch.backends.mha.get_fastpath_enabled()


@pytest.mark.parametrize("first", [True, False])
def test_default_encoder_with_padding_is_verified_on_the_rows_that_are_not_padding(first):
    """nn.TransformerEncoder's default (nested tensors on its fast path) gives zeros at padded rows,
    the tapped pass computes them: the rows that are padding are left out of the comparison."""
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, 64, batch_first=first), 2)
    padded = torch.tensor([[False, False, False, False, True, True], [False] * 6])
    x = torch.randn(2, 6, D, generator=torch.Generator().manual_seed(3))
    x = x if first else x.transpose(0, 1)

    session = _verified(_session(encoder, lambda text: ((x, None, padded), ["w"] * 6)))
    captures, output = session.capture_all()
    with torch.no_grad():
        reference = encoder.eval()(x, src_key_padding_mask=padded)
    rows = (0, slice(4, 6)) if first else (slice(4, 6), 0)
    assert (output[rows] != 0).any()  # the tapped pass computes the padded rows
    # Batch first, the fast path runs on nested tensors and gives zeros there; sequence first it has none.
    assert bool((reference[rows] == 0).all()) is first
    keys = {c.name: c for c in captures}["enc.0.attn.masked"].tensor
    assert torch.isinf(keys[0, :, :, 4:]).all() and torch.isfinite(keys[1]).all()


def test_a_nested_tensor_is_refused_with_what_to_pass_instead():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, 64, batch_first=True), 1)
    nested = torch.nested.nested_tensor([torch.randn(5, D), torch.randn(3, D)])
    adapter = wrap(encoder, lambda text: ((nested,), ["w"] * 5))
    with pytest.raises(InputError, match="cannot tap nested tensors.*padded tensor and a key padding mask"):
        adapter.prepare({"text": "x"})


def test_transformer_with_padded_source_says_why_without_a_memory_mask():
    """nn.Transformer's encoder runs nested tensors on its fast path: padded memory rows are 0 there
    and computed in the tapped pass. With memory_key_padding_mask the decoder never reads them."""
    transformer = nn.Transformer(D, H, 1, 1, 64, batch_first=True)
    src = torch.randn(2, 5, D, generator=torch.Generator().manual_seed(4))
    tgt = torch.randn(2, 4, D, generator=torch.Generator().manual_seed(5))
    pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
    words = {"src": list("abcde"), "tgt": list("wxyz")}

    masked = _session(transformer, lambda text: ((src, tgt, None, None, None, pad, None, pad), words))
    _verified(masked)
    unmasked = _session(transformer, lambda text: ((src, tgt, None, None, None, pad), words))
    unmasked.capture_all()
    assert not unmasked.verification.ok
    assert "Pass memory_key_padding_mask too." in unmasked.verification.describe()
