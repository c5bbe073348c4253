"""The Overview dock over a backward, driven by keys and clicks: F5 to the end, Ctrl+Shift+B, View → Overview; its
stages in backward order (the logits first), ‖x‖₂ of each stage's gradient, and the parameters' gradient norm per
layer at that layer's first gradient — held to autograd on the unmodified GPT-2 — with a click going there."""

from __future__ import annotations

import math

import pytest
import torch

from tests.ui import test_backward_window
from tests.ui.test_backward_window import _click_point, backward_by_keys
from tests.ui.test_overview_dock import show_overview
from tests.ui.user_actions import pick

transformers = pytest.importorskip("transformers")

finished = test_backward_window.finished  # a finished pass of tiny-gpt2, its display work done


def _unmodified(ids: torch.Tensor) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """The bundled tiny GPT-2 without taps under the next-token loss over `ids`: autograd's gradient of each
    parameter, and of each block's output (`output_hidden_states`: hidden_states[i + 1] is block i's residual
    output, the last one after the final norm)."""
    from tfdebug.adapters.bundled import bundled_folder

    model = transformers.AutoModelForCausalLM.from_pretrained(bundled_folder("tiny-gpt2")).eval()
    out = model(input_ids=ids, output_hidden_states=True)
    loss = torch.nn.functional.cross_entropy(out.logits[0, :-1], ids[0, 1:])
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    blocks = out.hidden_states[1:-1]  # the last block's output is normed before it is returned
    grads = torch.autograd.grad(loss, [p for _, p in params] + list(blocks) + [out.logits])
    by_name = dict(zip([n for n, _ in params], grads))
    stages = {f"dec.{i}.ffn.resid": g for i, g in enumerate(grads[len(params):len(params) + len(blocks)])}
    stages["logits"] = grads[-1]
    return by_name, stages


def test_the_overview_plots_a_backward_s_gradient_norms_and_its_parameters_norms_per_layer(finished, qtbot):
    window = finished
    ids = window.ctl.source.session.prepared.kwargs["input_ids"]
    parameters, stages = _unmodified(ids)

    def norm(prefix: str) -> float:  # √Σ‖g‖² over the parameters whose names hold `prefix`
        return math.sqrt(sum(float(g.double().norm()) ** 2 for n, g in parameters.items() if prefix in n))
    panel = show_overview(window, qtbot)  # over the forward pass: its order, and no parameters' norms yet
    assert panel.plot.getAxis("bottom").labelText == "stage (forward order)"
    pick(qtbot, panel.statistic, "parameters' ‖∂L/∂θ‖₂ per layer (backward)")
    assert all(v != v for v in panel.values) and "Run Debug ▸ Backward" in panel.readout.text()
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    qtbot.waitUntil(lambda: window.ctl.current is not None, timeout=10000)
    names = window.ctl.plan.names()
    assert names[0] == "logits" and names[-1] == "tok.embed"
    qtbot.waitUntil(lambda: panel.plot.getAxis("bottom").labelText == "stage (backward order)", timeout=10000)

    # ‖x‖₂ of each gradient, in backward order: autograd's on the unmodified model where it hands one out
    pick(qtbot, panel.statistic, "‖x‖₂")
    qtbot.waitUntil(lambda: panel.names == names and not any(math.isnan(v) for v in panel.values), timeout=30000)
    for name, grad in stages.items():
        assert panel.values[names.index(name)] == pytest.approx(float(grad.double().norm()), rel=1e-5), name
    planes = [c for c in window.ctl.plan if c.recipe]  # the gradient recipes' norms, computed block by block
    assert planes and all(panel.values[names.index(c.name)] == pytest.approx(
        float(c.tensor.materialize().double().norm()), rel=1e-5) for c in planes)

    # the parameters' norm per layer, each at the layer's first gradient (a layer's last stage, forward)
    pick(qtbot, panel.statistic, "parameters' ‖∂L/∂θ‖₂ per layer (backward)")
    first = {layer: names.index(f"dec.{layer}.ffn.resid") for layer in (0, 1)}
    qtbot.waitUntil(lambda: not math.isnan(panel.values[first[1]]), timeout=10000)
    for layer, at in first.items():
        assert panel.values[at] == pytest.approx(norm(f"h.{layer}."), rel=1e-5), layer
    final = names.index("dec.norm")  # the final norm's own parameters, at its gradient
    assert panel.values[final] == pytest.approx(norm("ln_f."), rel=1e-5)
    embed = names.index(next(n for n in names if n.startswith("tok.")))  # wte and wpe, at the first embedding stage
    assert panel.values[embed] == pytest.approx(math.hypot(norm("wte."), norm("wpe.")), rel=1e-5)
    assert sum(v == v for v in panel.values) == 4  # the embeddings, two layers, the final norm: nothing else
    xs, ys = panel.curve.getData()
    assert list(xs) == sorted([embed, first[0], first[1], final])

    # a click on layer 0's point goes to its first gradient
    vb = panel.plot.getPlotItem().vb
    qtbot.waitUntil(lambda: vb.viewRange()[0][0] <= min(xs) and vb.viewRange()[0][1] >= max(xs), timeout=5000)
    i = list(xs).index(first[0])
    _click_point(qtbot, panel.plot, xs[i], ys[i])
    qtbot.waitUntil(lambda: window.ctl.current.name == "dec.0.ffn.resid", timeout=10000)
    qtbot.waitUntil(lambda: panel.current_line.value() == first[0], timeout=5000)



def test_the_overview_of_a_served_backward_asks_the_server_for_each_gradient_s_norm(make_window, qtbot, tmp_path):
    """The same over `tfdebug serve --model tiny-gpt2` (File ▸ Connect to Server…): ‖x‖₂ of each gradient computed
    on the server equals this process's backward's; the parameters' norms per layer come with the served summary."""
    pytest.importorskip("zmq")
    from PySide6.QtCore import Qt

    from tests.remote.served import start_server, stop_server
    from tests.ui.test_remote_window import connect_through_the_menu
    from tests.ui.user_actions import press
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.backward import run_backward
    from tfdebug.sessions.session import DebugSession

    prompt = "the cat is on the mat ="
    here = DebugSession(load_adapter("tiny-gpt2"), texts={"prompt": prompt})
    local = run_backward(here.adapter, here.prepared)
    server = start_server(tmp_path, "--input", f"prompt={prompt}", model="tiny-gpt2")
    try:
        window = make_window()
        window.ctl.close()
        window.show()
        connect_through_the_menu(window, qtbot, server)
        backward = window.actions_by_id["tfdebug.debug.backward"]
        press(window, Qt.Key_F5)
        qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished" and backward.isEnabled(), timeout=30000)
        backward_by_keys(window, qtbot)
        qtbot.waitUntil(lambda: "backward" in window.ctl.title and window.ctl.current is not None, timeout=60000)
        assert not window.ctl.source.capabilities.tensors_here
        panel = show_overview(window, qtbot)
        names = window.ctl.plan.names()
        assert names == [c.name for c in local.gradients]
        pick(qtbot, panel.statistic, "‖x‖₂")
        qtbot.waitUntil(lambda: panel.names == names and not any(math.isnan(v) for v in panel.values), timeout=30000)
        for capture in local.gradients:
            tensor = capture.tensor.materialize() if capture.recipe else capture.tensor
            assert panel.values[names.index(capture.name)] == pytest.approx(float(tensor.double().norm()),
                                                                            rel=1e-5), capture.name
        pick(qtbot, panel.statistic, "parameters' ‖∂L/∂θ‖₂ per layer (backward)")
        layers = local.layer_norms()
        for layer in (0, 1):
            at = names.index(f"dec.{layer}.ffn.resid")
            qtbot.waitUntil(lambda at=at: panel.values[at] == panel.values[at], timeout=10000)
            assert panel.values[at] == pytest.approx(layers[f"layer {layer}"], rel=1e-5), layer
        xs, ys = panel.curve.getData()
        i = list(xs).index(names.index("dec.1.ffn.resid"))
        vb = panel.plot.getPlotItem().vb
        qtbot.waitUntil(lambda: vb.viewRange()[0][0] <= min(xs) and vb.viewRange()[0][1] >= max(xs), timeout=5000)
        _click_point(qtbot, panel.plot, xs[i], ys[i])  # the served pass runs to layer 1's first gradient
        qtbot.waitUntil(lambda: window.ctl.current.name == "dec.1.ffn.resid", timeout=10000)
        window.ctl.close()
    finally:
        stop_server(server)

