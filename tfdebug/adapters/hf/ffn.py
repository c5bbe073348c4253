"""The feed-forward part of a Hugging Face layer, planned from the probe (a part of `hf_layers.LayerPlanner`).

Dense FFNs by the data table of child names (gate/up/down, fc1/fc2, c_fc/c_proj …), a
mixture of experts (router logits, each token's chosen experts and weights, the experts'
output, a shared expert), and parallel blocks whose attention and FFN read the same input.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from tfdebug.adapters.hf import conventions as conv
from tfdebug.adapters.hf.builder import HIDDEN, STREAM
from tfdebug.adapters.hf.hooks import EachExpert, Output, Router
from tfdebug.adapters.hf.match import close
from tfdebug.adapters.hf.match import refuse as _refuse
from tfdebug.adapters.hf.probe import Call

if TYPE_CHECKING:
    from tfdebug.adapters.hf.layers import Stream


class FeedForward:
    """The feed-forward methods of LayerPlanner (they use its builder `b`, record `rec` and `_calls`)."""

    def _ffn_out(self, m: Call, lo: int) -> Call:
        """The feed-forward module's own output call: `m`, or the module whose output `m` (a post-norm) reads."""
        if not conv.is_norm(m.module):
            return m
        return next((c for c in self._calls(lo, m.index) if c.out is m.input), m)

    def _ffn_parts(self, prefix: str, out_call: Call, lo: int, source: str) -> None:
        b, t = self.b, {"token": self.stream}
        region = self._calls(lo, out_call.end + 1)
        names = [(conv.last(c.path), c) for c in region]
        experts = next((c for n, c in names if n in conv.EXPERTS or "Experts" in type(c.module).__name__), None)
        if experts is not None:
            router = next((c for n, c in names if n in conv.ROUTER and c.index < experts.index), None)
            if router is not None:
                routing = isinstance(router.output, tuple) and len(router.output) >= 3
                b.tap(f"{prefix}.router_logits", "router_logits", ("token", "expert"), "x·W_router: one score per "
                      "expert", t, router.path, inputs=(source,))
                if routing:
                    k = router.output[2].shape[-1]
                    b.tap(f"{prefix}.routing", "routing", ("token", "expert"), f"the top {k} experts of each token "
                          "and their weights (0: not chosen)", t, router.path, inputs=(".router_logits",))
                b.plan.hooks.append(Router(router.path, f"{prefix}.router_logits",
                                           f"{prefix}.routing" if routing else None))
            b.tap(f"{prefix}.each_expert", "expert_out", ("token", "expert", "model"),
                  "FFN_e(x) for each token that chose expert e (0 where it did not)", t, experts.path,
                  inputs=(source,))
            b.plan.hooks.append(EachExpert(experts.path, f"{prefix}.each_expert"))
            b.output(experts.path, f"{prefix}.experts", "expert_out", ("token", "model"),
                     "Σ over the chosen experts: weight × FFN_expert(x)", t,
                     inputs=(".routing", ".each_expert") if f"{prefix}.routing" in b.plan.taps else (".each_expert",))
            shared = next((c for n, c in names if n in conv.SHARED_EXPERT), None)
            if shared is not None:
                b.output(shared.path, f"{prefix}.shared", "ffn_out", shared.out.dim() == 3 and STREAM
                         or ("token", "model"), "FFN_shared(x): the expert every token uses", t, inputs=(source,))
            b.output(out_call.path, f"{prefix}.out", "ffn_out", STREAM, "experts + shared" if shared else
                     "the chosen experts' weighted sum", t, inputs=(".experts",))
            return
        down = out_call if conv.is_linear(out_call.module) else next(
            (c for c in reversed(self._calls(out_call.index + 1, out_call.end + 1)) if conv.is_linear(c.module)), None)
        if down is None:
            raise _refuse("cannot tell which child of {path} is the feed-forward's down projection.", "no_down_proj",
                          path=out_call.path)
        before = [(n, c) for n, c in names if c.index < down.index]
        gate = next((c for n, c in before if n in conv.GATE), None)
        up = next((c for n, c in before if n in conv.UP), None)
        fused = next((c for n, c in before if n in conv.FUSED_GATE_UP), None)
        act = next((c for n, c in before if n in conv.ACTIVATION), None)
        hidden_formula, hidden_inputs = "act(x·W_1 + b_1)", (source,)
        if gate is not None and up is not None:
            where = act if act is not None and close(act.input, gate.out) else gate
            b.output(where.path, f"{prefix}.gate", "ffn_gate", HIDDEN,
                     "act(x·W_gate)" if where is act else "x·W_gate", t, inputs=(source,))
            b.output(up.path, f"{prefix}.up", "ffn_hidden", HIDDEN, "x·W_up", t, inputs=(source,))
            hidden_formula, hidden_inputs = "act(x·W_gate) ⊙ x·W_up", (".gate", ".up")
        elif fused is not None:
            b.output(fused.path, f"{prefix}.up", "ffn_hidden", ("batch", "token", "hidden"),
                     "[x·W_gate | x·W_up]  (one fused projection)", t, inputs=(source,))
            hidden_formula, hidden_inputs = "act(gate) ⊙ up", (".up",)
        b.input(down.path, f"{prefix}.hidden", "ffn_hidden", HIDDEN, hidden_formula, t, inputs=hidden_inputs)
        b.output(out_call.path, f"{prefix}.out", "ffn_out", STREAM, "hidden·W_2", t, inputs=(".hidden",))

    # ----- parallel blocks ---------------------------------------------------------------
    def _parallel(self, layer: Call, option: Stream, out_call: Call):
        """The FFN output call of a parallel block: layer output = stream + attention out + FFN out."""
        if layer.out is None or out_call.out is None or out_call.out.shape != layer.out.shape:
            return None
        whole = layer.out.double() - option.value.double()
        rest = whole - out_call.out.double()
        size = float(layer.out.detach().abs().max())
        for m in self._calls(out_call.end + 1, layer.end + 1):
            if m.out is None or m.out.shape != rest.shape:
                continue
            # Falcon adds the attention's output into the FFN's output tensor in place (`mlp_output += …`):
            # by the end of the run that tensor holds both.
            if close(rest, m.out.double(), m.out.dtype, size) or m.out._version > 0 and close(
                    whole, m.out.double(), m.out.dtype, size):
                return m
        return None

    def _parallel_ffn(self, layer: Call, attn: str, option: Stream, out_call: Call, m: Call) -> str:
        prefix = attn.rsplit(".", 1)[0] + ".ffn"
        t = {"token": self.stream}
        lo = out_call.end + 1
        norm = next((c for c in self._calls(lo, m.index + 1) if conv.is_norm(c.module) and close(c.input, option.value)),
                    None)
        if norm is not None:
            kind, formula = conv.norm_kind(norm.module)
            self.b.output(norm.path, f"{prefix}.norm", kind, STREAM, formula, t, inputs=(option.stage,))
            lo = norm.end + 1
        source = ".norm" if norm is not None else f"{attn}.norm"
        self._ffn_parts(prefix, m, lo, source)
        if m.out._version > 0:  # added to in place: the model continues with a copy, the stage keeps the FFN's own
            hooks = self.b.plan.hooks
            at = next(i for i, h in enumerate(hooks) if isinstance(h, Output) and h.stage == f"{prefix}.out")
            hooks[at] = dataclasses.replace(hooks[at], copy=True)
        self.b.output(layer.path, f"{prefix}.resid", "residual", STREAM,
                      "x + Attention(Norm(x)) + FFN(Norm(x))  (attention and FFN read the same x, side by side)", t,
                      inputs=(option.stage, f"{attn}.out", ".out"))
        return f"{prefix}.resid"

