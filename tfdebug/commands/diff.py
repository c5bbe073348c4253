"""`tfdebug diff A B`: compare two recorded passes stage by stage; print the table and the first divergent stage.

`tfdebug diff --model M --dtype bfloat16 --against float32` runs the pass itself, twice:
the reference A on M as `--against` says (a dtype, a device, DTYPE@DEVICE, an attention
kernel such as sdpa, or another folder of the same weights), then B as --dtype/--device say
(tfdebug's eager attention), and names the first stage where B leaves A's tolerance (by
default what the coarser dtype can hold). Then the transplant: A's tensor put into B at that
stage (or the first that differs at all, or `--transplant STAGE`), B run on, and how much
of the last stage's difference remains (tfdebug.sessions.transplant).

`--backward` compares the two passes' gradients instead (sessions.crosscheck.compare_backward): the next-token
loss backpropagated on each, every stage's gradient compared in backward order (logits first), and the first
stage whose gradient diverges named (float16 against float32 finds the first gradient that overflowed). Two
backward snapshots (`tfdebug backward --out`) compare in backward order without it.

Exit status: 0 when no stage diverges, 1 when one does (or two stages of the same name
differ in shape), 2 when a file cannot be read — so it fits in a script or CI.
"""

from __future__ import annotations

import argparse
import json

from tfdebug.core.compare import (COMPARED, DEFAULT_ATOL, DEFAULT_RTOL, ONLY_A, ONLY_B, SHAPE, Comparison, compare,
                                  format_delta)
from tfdebug.core.errors import TfdebugError

# The comparison itself never touches the allocator: reading two files is all this does.
TUNE_ALLOCATOR = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug diff`'s options to `parser`."""
    from tfdebug.commands.common import add_model_arguments

    parser.add_argument("a", metavar="A", nargs="?", help="the reference pass (.safetensors snapshot, .npz or .pt export)")
    parser.add_argument("b", metavar="B", nargs="?", help="the pass compared with it")
    parser.add_argument("--atol", type=float, default=None,
                        help=f"absolute tolerance (default {DEFAULT_ATOL:g}; with --against, the coarser dtype's)")
    parser.add_argument("--rtol", type=float, default=None,
                        help=f"relative tolerance, times |A| (default {DEFAULT_RTOL:g}; with --against, the coarser "
                             "dtype's); a cell diverges when |A − B| > atol + rtol·|A|")
    parser.add_argument("--against", default=None, metavar="DTYPE|DEVICE|KERNEL|FOLDER",
                        help="instead of two files: run --model twice, the reference in this dtype, on this device, "
                             "with this attention kernel or from this folder of the same weights (float32, cuda:0, "
                             "float32@cpu, sdpa, hf:FOLDER …), the other as --dtype and --device say")
    parser.add_argument("--transplant", default=None, metavar="STAGE",
                        help="with --against, put the reference's tensor in at this stage (default: the first "
                             "divergent one) and report how much of the last stage's difference remains")
    parser.add_argument("--stages", nargs="*", default=None, metavar="PATTERN",
                        help="with --against, only stages whose names match these glob patterns")
    parser.add_argument("--backward", action="store_true",
                        help="with --against, compare the two passes' gradients of the next-token loss, in backward "
                             "order (logits first), and name the first stage whose gradient diverges")
    add_model_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the comparison as one JSON object")


def fmt_shape(shape) -> str:
    """A shape as '(a,b,c)', without spaces."""
    return "(" + ",".join(map(str, shape)) + ")"


def table(result: Comparison) -> str:
    """The comparison as a fixed-width text table, forward order, the first divergent row marked »."""
    first = result.first_divergent
    header = ("", "stage", "status", "shape", "max |Δ|", "mean |Δ|", "rel err", "over tol")
    rows = []
    for r in result.stages:
        shape = r.shape_a if r.shape_a is not None else r.shape_b
        share = "" if r.over_share is None else f"{100 * r.over_share:.1f}%"
        rows.append(("»" if r is first else "", r.name, r.verdict,
                     fmt_shape(shape) if r.status != SHAPE else "", format_delta(r.max_abs),
                     format_delta(r.mean_abs), format_delta(r.rel_error), share))
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(header)]
    lines = [header, tuple("-" * w for w in widths), *rows]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def verdict(result: Comparison, backward: bool = False) -> str:
    """One closing sentence: where the passes (their gradients with `backward`) first part ways, or that they
    agree."""
    first = result.first_divergent
    tolerance = f"atol {result.atol:g} + rtol {result.rtol:g}·|A|"
    shapes = result.of_status(SHAPE)
    if first is not None:
        over = f"{100 * first.over_share:.1f}% of its {first.cells:,} cells"
        what = "first divergent gradient (backward order)" if backward else "first divergent stage"
        return (f"{what}: {first.name} (max |Δ| {format_delta(first.max_abs)}; {over} "
                f"have |A − B| > {tolerance})")
    if shapes:
        return f"no stage diverges in value ({tolerance}), but {len(shapes)} stage(s) differ in shape"
    return f"no stage diverges ({tolerance})"


def _placed(args: argparse.Namespace):
    """The comparison of --model run as --against says (A) and as --dtype/--device say (B), the transplant, and
    the two passes' names."""
    from tfdebug.sessions.crosscheck import Placement, find_divergence, parse_against
    from tfdebug.adapters.registry import default_model_name
    from tfdebug.commands.common import given_texts

    spec = args.model or default_model_name()
    other = Placement(args.dtype, args.device, args.device_map)
    reference = parse_against(args.against, other)
    result, transplant = find_divergence(spec, given_texts(args) or None, reference, other, stages=args.stages,
                                         atol=args.atol, rtol=args.rtol, transplant=args.transplant or True)
    return result, transplant, f"{spec}, {reference.describe()}", f"{spec}, {other.describe()}"


def _placed_backward(args: argparse.Namespace):
    """The gradients of --model's next-token loss run as --against says (A) and as --dtype/--device say (B),
    compared in backward order, and the two passes' names."""
    from tfdebug.adapters.registry import default_model_name
    from tfdebug.commands.common import given_texts
    from tfdebug.sessions.crosscheck import Placement, compare_backward, parse_against

    spec = args.model or default_model_name()
    other = Placement(args.dtype, args.device, args.device_map)
    reference = parse_against(args.against, other)
    found = compare_backward(spec, given_texts(args) or None, reference, other, stages=args.stages, atol=args.atol,
                             rtol=args.rtol)
    return found, f"{spec}, {reference.describe()}, backward", f"{spec}, {other.describe()}, backward"


def _backward_files(a, b, path_a: str, path_b: str) -> bool:
    """Whether two opened passes are backward passes; one forward and one backward is refused."""
    kinds = [getattr(r, "backward", None) is not None for r in (a, b)]
    if kinds[0] != kinds[1]:
        backward, forward = (path_a, path_b) if kinds[0] else (path_b, path_a)
        raise TfdebugError(f"{backward} holds a backward pass's gradients and {forward} a forward pass: compare "
                           "two of the same kind.")
    return kinds[0]


def transplant_text(transplant) -> str:
    """The transplant's lines: why that stage, its effect, and what still diverges after it."""
    if transplant is None:
        return "no transplant: the two passes are equal at every stage"
    why = {"first_divergent": "the first divergent stage", "named": "the stage asked for",
           "first_different": "no stage diverges; the first stage that differs at all"}[transplant.chosen]
    return f"transplant at {transplant.stage} ({why}): {transplant.describe()}\n{transplant.remaining()}"


def run(args: argparse.Namespace) -> int:
    """Compare two recorded passes stage by stage and print the table and the first divergent stage; returns the exit
    status."""
    from tfdebug.io.passes import open_pass

    if not ((args.atol is None or args.atol >= 0) and (args.rtol is None or args.rtol >= 0)):
        raise TfdebugError("--atol and --rtol must be zero or positive numbers.")
    backward = args.backward
    found = None
    if backward and args.transplant is not None:
        raise TfdebugError("--transplant puts a forward stage back in; it does not apply to --backward.")
    if args.against is not None:
        if args.a is not None:
            raise TfdebugError("Give two passes to compare, or --model with --against, not both.")
        if backward:
            found, args.a, args.b = _placed_backward(args)
            result, transplant = found.comparison, None
        else:
            result, transplant, args.a, args.b = _placed(args)
    else:
        if args.transplant is not None:
            raise TfdebugError("--transplant runs the model again: use it with --model … --against.")
        transplant, files = None, None
        if args.b is None:
            raise TfdebugError("Give two passes to compare (A B), or --model … --against DTYPE|DEVICE.")
        atol = DEFAULT_ATOL if args.atol is None else args.atol
        rtol = DEFAULT_RTOL if args.rtol is None else args.rtol
        with open_pass(args.a) as a, open_pass(args.b) as b:
            if _backward_files(a, b, args.a, args.b):
                backward = True
                files = {"a": a.backward, "b": b.backward}  # each file's objective, loss, first non-finite
            elif backward:
                raise TfdebugError("--backward with two files needs two backward passes (tfdebug backward --out); "
                                   f"{args.a} and {args.b} are forward passes.")
            result = compare(a, b, atol=atol, rtol=rtol)  # A's order: a backward pass's is logits first
    counts = {s: len(result.of_status(s)) for s in (COMPARED, ONLY_A, ONLY_B, SHAPE)}
    if args.json:
        extra = {} if args.against is None or backward else \
            {"transplant": None if transplant is None else transplant.to_dict()}
        if backward:
            extra["backward"] = found.to_dict() if found is not None else files
        print(json.dumps({"a": args.a, "b": args.b, **result.to_dict(), **extra}, ensure_ascii=False, indent=1))
    else:
        print(f"A  {args.a}\nB  {args.b}")
        if found is not None:
            print(f"next-token loss: A {found.loss_a:.6g}, B {found.loss_b:.6g}; first non-finite gradient: "
                  f"A {found.first_nonfinite_a or 'none'}, B {found.first_nonfinite_b or 'none'}")
        if backward:
            print("gradients compared in backward order (logits first)")
        print(f"{counts[COMPARED]} stages compared, {counts[SHAPE]} differ in shape, "
              f"{counts[ONLY_A]} only in A, {counts[ONLY_B]} only in B\n")
        print(table(result))
        print()
        print(verdict(result, backward))
        if args.against is not None and not backward:
            print(transplant_text(transplant))
    return 1 if result.differs else 0
