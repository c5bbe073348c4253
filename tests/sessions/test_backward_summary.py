"""A backward's summary. On a speech model: the saliency per frame of its spectrogram, the decoder tokens'
saliency and the parameters' gradient norms per layer and module, each checked against torch.autograd.grad of
the same loss on an unmodified Whisper (built from the same seed; plain forward hooks on its own modules), on
features its own feature extractor made of the audio; the summary on the wire; where each parameter sits; a
vision-language model's two towers kept apart."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from tests.adapters.test_hf_whisper import tiny_whisper  # noqa: E402
from tfdebug.adapters.hf.speech import WhisperAdapter  # noqa: E402
from tfdebug.demo.make_tiny_speech import RATE, tones, write_wav  # noqa: E402
from tfdebug.remote.backwards import summary_fields, summary_of_fields  # noqa: E402
from tfdebug.sessions.backward import parameter_place, run_backward  # noqa: E402
from tfdebug.sessions.gradient_session import summary_of  # noqa: E402

TEXT = "a low tone"


@pytest.fixture(scope="module")
def backward(tmp_path_factory):
    """run_backward of the next-token loss on tiny Whisper, and autograd's of the same loss on an unmodified copy:
    (result, prepared, {'conv1': (output, gradient), 'embed': (output, gradient)}, {parameter: gradient})."""
    model, extractor, tokenizer = tiny_whisper()
    adapter = WhisperAdapter(model, extractor, tokenizer)
    path = tmp_path_factory.mktemp("audio") / "tones.wav"
    write_wav(path, tones())
    prepared = adapter.prepare({"audio": str(path), "tgt": TEXT})
    result = run_backward(adapter, prepared)

    plain, _, _ = tiny_whisper()  # the same weights, no taps
    plain.config._attn_implementation = "eager"
    features = extractor(tones().astype(np.float32) / 32767, sampling_rate=RATE, return_tensors="pt")["input_features"]
    assert torch.equal(prepared.kwargs["input_features"], features)
    ids = torch.tensor([[2, *tokenizer(TEXT, add_special_tokens=False)["input_ids"]]])
    assert torch.equal(prepared.kwargs["decoder_input_ids"], ids)
    seen: dict[str, torch.Tensor] = {}
    hooks = [plain.model.encoder.conv1.register_forward_hook(lambda m, i, o: seen.__setitem__("conv1", o)),
             plain.model.decoder.embed_tokens.register_forward_hook(lambda m, i, o: seen.__setitem__("embed", o))]
    logits = plain(input_features=features, decoder_input_ids=ids).logits
    for hook in hooks:
        hook.remove()
    loss = torch.nn.functional.cross_entropy(logits[0, :-1], ids[0, 1:])
    assert float(loss.detach()) == pytest.approx(result.loss, rel=1e-6)
    names = [n for n, p in plain.named_parameters() if p.requires_grad]
    wanted = [seen["conv1"], seen["embed"], *(p for p in plain.parameters() if p.requires_grad)]
    grads = torch.autograd.grad(loss, wanted)
    acts = {"conv1": (seen["conv1"].detach(), grads[0]), "embed": (seen["embed"].detach(), grads[1])}
    return result, prepared, acts, dict(zip(names, grads[2:]))


def test_each_spectrogram_frame_s_saliency_is_gradient_times_the_first_convolution_s_output(backward):
    result, prepared, acts, _ = backward
    output, gradient = acts["conv1"]  # (batch, channels, frames): one column per frame of the features
    product = (gradient[0].double() * output[0].double())
    frames = result.frame_saliency()
    assert len(frames) == prepared.kwargs["input_features"].shape[-1] == product.shape[1] == 200
    want_norm, want_sum = product.norm(dim=0), product.sum(dim=0)
    got_sum = torch.tensor([s for s, _ in frames], dtype=torch.float64)
    got_norm = torch.tensor([n for _, n in frames], dtype=torch.float64)
    assert float((got_norm - want_norm).abs().max()) <= 1e-12 * float(want_norm.max())
    assert float((got_sum - want_sum).abs().max()) <= 1e-12 * float(want_sum.abs().max())
    assert int(got_norm.argmax()) == int(want_norm.argmax())


def test_the_token_saliency_of_a_speech_model_is_its_decoder_tokens(backward):
    result, prepared, acts, _ = backward
    output, gradient = acts["embed"]
    product = gradient[0].double() * output[0].double()
    saliency = result.saliency()
    assert result.saliency_stage().name == "tgt.embed" and len(saliency) == product.shape[0] == 4
    assert [n for _, n in saliency] == pytest.approx(product.norm(dim=-1).tolist(), rel=1e-6)
    assert [s for s, _ in saliency] == pytest.approx(product.sum(dim=-1).tolist(), rel=1e-5, abs=1e-9)
    summary = summary_of(result, prepared.tokens)
    assert summary.tokens == prepared.tokens["tgt"] and len(summary.frames) == 200


def test_the_parameters_norms_per_layer_and_module_are_autograd_s(backward):
    """Each (stack, layer, module) row is √Σ‖∂L/∂p‖² of the parameters there, their names read here by hand."""
    result, _, _, grads = backward

    def norm(keep) -> float:
        return math.sqrt(sum(float(g.double().norm()) ** 2 for n, g in grads.items() if keep(n)))
    rows = {(stack, layer, module): value for stack, layer, module, value in result.module_norms()}
    want = {("enc", None, "embeddings"): norm(lambda n: ".encoder.conv" in n or ".encoder.embed" in n),
            ("enc", None, "norm"): norm(lambda n: n.startswith("model.encoder.layer_norm.")),
            ("dec", None, "embeddings"): norm(lambda n: ".decoder.embed" in n),
            ("dec", None, "norm"): norm(lambda n: n.startswith("model.decoder.layer_norm."))}
    for stack, word in (("enc", "encoder"), ("dec", "decoder")):
        for i in range(2):
            inside = f"model.{word}.layers.{i}."
            want[(stack, i, "attention")] = norm(lambda n: n.startswith(inside + "self_attn."))
            want[(stack, i, "norm")] = norm(lambda n: n.startswith(inside) and "layer_norm" in n)
            want[(stack, i, "mlp")] = norm(lambda n: n.startswith(inside + "fc"))
            if stack == "dec":
                want[(stack, i, "cross_attention")] = norm(lambda n: n.startswith(inside + "encoder_attn."))
    assert set(rows) == set(want)
    for key, value in want.items():
        assert rows[key] == pytest.approx(value, rel=1e-5), key
    order = list(rows)  # the model's order
    assert order.index(("enc", None, "embeddings")) < order.index(("enc", 1, "mlp")) < \
        order.index(("enc", None, "norm")) < order.index(("dec", None, "embeddings")) < order.index(("dec", 0, "attention"))
    # every parameter with a gradient is in one row
    assert sum(v ** 2 for v in rows.values()) == pytest.approx(norm(lambda n: True) ** 2, rel=1e-9)
    layers = dict(result.layer_norms())
    assert layers["encoder layer 0"] == pytest.approx(norm(lambda n: ".encoder.layers.0." in n), rel=1e-5)
    assert layers["decoder layer 1"] == pytest.approx(norm(lambda n: ".decoder.layers.1." in n), rel=1e-5)


def test_the_summary_crosses_the_wire_whole_and_an_older_server_s_lacks_the_new_fields(backward):
    result, prepared, _, _ = backward
    summary = summary_of(result, prepared.tokens)
    assert summary_of_fields(summary_fields(summary)) == summary
    older = summary_fields(summary)
    del older["modules"], older["frames"]
    read = summary_of_fields(older)
    assert read.modules == [] and read.frames == [] and read.layers == summary.layers
    bad = summary_fields(summary)
    bad["modules"][0][1] = "0"
    with pytest.raises(TypeError):
        summary_of_fields(bad)


@pytest.mark.parametrize("name, place", [
    ("transformer.h.3.ln_1.weight", ("", 3, "norm")),
    ("transformer.h.3.attn.c_attn.weight", ("", 3, "attention")),
    ("transformer.h.3.mlp.c_proj.bias", ("", 3, "mlp")),
    ("transformer.wte.weight", ("", None, "embeddings")),
    ("transformer.ln_f.bias", ("", None, "norm")),
    ("lm_head.weight", ("", None, "head")),
    ("model.layers.2.self_attn.q_norm.weight", ("", 2, "norm")),
    ("model.layers.2.block_sparse_moe.experts.1.w1.weight", ("", 2, "mlp")),
    ("bert.encoder.layer.1.attention.output.dense.weight", ("encoder", 1, "attention")),
    ("bert.encoder.layer.1.output.dense.weight", ("encoder", 1, "mlp")),
    ("bert.embeddings.LayerNorm.weight", ("", None, "norm")),
    ("vit.embeddings.cls_token", ("", None, "embeddings")),
    ("classifier.weight", ("", None, "head")),
    ("decoder.block.0.layer.1.EncDecAttention.k.weight", ("decoder", 0, "cross_attention")),
    ("model.decoder.layers.0.encoder_attn_layer_norm.weight", ("decoder", 0, "norm")),
])
def test_each_parameter_s_place_is_read_from_its_module_path(name, place):
    assert parameter_place(name) == place


def test_a_vision_language_model_s_norms_keep_the_vision_tower_and_the_language_model_apart():
    """tiny-llava: the vision tower's layers and embeddings are the encoder's places, the language model's (whose
    parameter names say no stack) the decoder's; every parameter is in one row."""
    from tfdebug.adapters.hf.vision import sample_image
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter("tiny-llava")
    session = DebugSession(adapter, {"image": str(sample_image()), "prompt": "what is this"}, planning="lazy")
    result = run_backward(adapter, session.prepared)
    rows = {(stack, layer, module): value for stack, layer, module, value in result.module_norms()}
    tower = {n: v for n, v in result.parameters.items() if ".vision_tower." in n}
    language = {n: v for n, v in result.parameters.items() if ".language_model." in n}
    assert tower and language
    assert rows[("enc", 0, "attention")] == pytest.approx(math.sqrt(sum(
        v ** 2 for n, v in tower.items() if ".layers.0.self_attn." in n)), rel=1e-12)
    assert rows[("dec", 0, "attention")] == pytest.approx(math.sqrt(sum(
        v ** 2 for n, v in language.items() if ".layers.0.self_attn." in n)), rel=1e-12)
    assert rows[("enc", None, "embeddings")] == pytest.approx(math.sqrt(sum(
        v ** 2 for n, v in tower.items() if ".embeddings." in n)), rel=1e-12)
    assert rows[("dec", None, "embeddings")] == pytest.approx(math.sqrt(sum(
        v ** 2 for n, v in language.items() if "embed_tokens" in n)), rel=1e-12)
    assert sum(v ** 2 for v in rows.values()) == pytest.approx(sum(v ** 2 for v in result.parameters.values()),
                                                                 rel=1e-12)
