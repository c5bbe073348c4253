"""`tfdebug backward`: one forward with gradients on, an objective, its backward, and every stage's gradient in
backward order (logits first), with the first stage whose gradient is not finite, the parameters' gradient
norms per layer and each token's saliency (gradient × embedding). `--out FILE.safetensors` saves the gradients as
a snapshot (backward order, the objective and the loss in its manifest) that `tfdebug open` replays logits
first."""

from __future__ import annotations

import argparse
import json

from tfdebug.commands.common import add_model_arguments, load_from_args, session_inputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug backward`'s options to `parser`."""
    add_model_arguments(parser)
    parser.add_argument("--objective", default="next_token",
                        choices=("next_token", "position", "logit_diff", "stage_sum"),
                        help="next_token: the cross-entropy of every next token over the prompt (the training loss, "
                             "padding ignored; default); position: that loss at --position only; logit_diff: "
                             "logit(--target) − logit(--contrast) at --position; stage_sum: the sum of --stage's "
                             "whole tensor")
    parser.add_argument("--position", type=int, default=-1, metavar="N", help="the position (default -1, the last)")
    parser.add_argument("--target", default=None, metavar="TOKEN", help="logit_diff's target (default the prediction)")
    parser.add_argument("--contrast", default=None, metavar="TOKEN", help="logit_diff's contrast (default none)")
    parser.add_argument("--stage", default="", metavar="NAME", help="stage_sum's stage (dec.0.ffn.resid)")
    parser.add_argument("--json", action="store_true", help="print every stage's gradient statistics as JSON")
    parser.add_argument("--out", default=None, metavar="FILE.safetensors",
                        help="also save the gradients as a snapshot (backward order; `tfdebug open` replays it)")


def _row(capture) -> dict:
    import torch

    from tfdebug.core.recipes import materialized

    g = materialized(capture.tensor).detach()  # a plane's gradient computed whole, for this row only
    finite = torch.isfinite(g)
    values = g[finite].double()
    return {"stage": capture.name, "kind": capture.info.kind, "shape": list(capture.shape),
            "norm": float(values.norm()) if values.numel() else 0.0,
            "max_abs": float(values.abs().max()) if values.numel() else 0.0,
            "nan": int(torch.isnan(g).sum()), "inf": int(torch.isinf(g).sum())}


def run(args: argparse.Namespace) -> int:
    """Run one forward and the objective's backward, and report (or save) every stage's gradient; returns the exit
    status."""
    from tfdebug.sessions.backward import Objective, run_backward
    from tfdebug.sessions.session import DebugSession
    from tfdebug.sessions.why import token_id

    if args.out is not None:  # refused before the model loads
        from tfdebug.core.errors import ExportError, InputError
        from tfdebug.io.atomic import check_output

        if not args.out.lower().endswith(".safetensors"):
            raise InputError(f"--out {args.out}: a backward pass is saved as a .safetensors snapshot.")
        check_output(args.out, ExportError)
    adapter = load_from_args(args)
    session = DebugSession(adapter, **session_inputs(args, adapter), planning="lazy")
    target = token_id(adapter, args.target) if args.target is not None else None
    contrast = token_id(adapter, args.contrast) if args.contrast is not None else None
    if args.objective == "logit_diff" and target is None:
        from tfdebug.core.errors import InputError

        raise InputError("--objective logit_diff needs --target TOKEN.")
    from tfdebug.core.budget import default_capture_budget

    result = run_backward(adapter, session.prepared, Objective(args.objective, args.position, target, contrast,
                                                                    args.stage),
                          plan=list(session.plan), budget=default_capture_budget(adapter.device))
    if args.out is not None:
        from tfdebug.io.snapshot import save_snapshot

        save_snapshot(result.recording(session), args.out)
    rows = [_row(c) for c in result.gradients]
    layers = result.layer_norms()
    largest = sorted(result.parameters.items(), key=lambda item: -item[1])[:5]
    tokens = next(iter(session.tokens.values()), [])
    saliency = result.saliency() or []
    if args.json:
        print(json.dumps({"objective": result.objective.describe(), "loss": result.loss,
                          "first_nonfinite": result.first_nonfinite, "stages": rows, "parameter_norms": layers,
                          "largest_parameter_gradients": largest,
                          "saliency": [{"token": tokens[i] if i < len(tokens) else "", "grad_x_embedding": s,
                                        "norm": n} for i, (s, n) in enumerate(saliency)]},
                         ensure_ascii=False, indent=1))
        return 0
    print(f"model {adapter.describe()}; {result.objective.describe()} = {result.loss:.6g}")
    width = max(len(r["stage"]) for r in rows)
    print(f"{'stage (backward order)'.ljust(width)}  {'‖grad‖':>10}  {'max |g|':>10}  nan  inf")
    for r in rows:
        print(f"{r['stage'].ljust(width)}  {r['norm']:>10.4g}  {r['max_abs']:>10.4g}  {r['nan']:>3}  {r['inf']:>3}")
    print("first non-finite gradient: " + (result.first_nonfinite or "none"))
    print("parameter gradient norm per layer: " + ", ".join(f"{k} {v:.4g}" for k, v in layers.items()))
    print("largest parameter gradients: " + ", ".join(f"{k} {v:.4g}" for k, v in largest))
    if args.out is not None:
        print(f"wrote {args.out}: {len(rows)} stages' gradients, logits first")
    if saliency:
        print("saliency (gradient × embedding per token): " + ", ".join(
            f"{tokens[i] if i < len(tokens) else i}: {s:+.3g}" for i, (s, _) in enumerate(saliency)))
    return 0
