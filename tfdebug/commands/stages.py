"""`tfdebug stages`: one forward, then the table of captured stages (like a model summary)."""

from __future__ import annotations

import argparse
import json
import sys

from tfdebug.io.limits import escape_controls
from tfdebug.commands.common import (add_budget_argument, add_model_arguments, budget_from_args, keep_from_args,
                                     given_rows, load_from_args, session_inputs)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug stages`'s options to `parser`."""
    add_model_arguments(parser)
    parser.add_argument("--stages", nargs="*", default=None, metavar="PATTERN",
                        help="only stages whose names match these glob patterns (e.g. 'dec.*.cross_attn.*')")
    parser.add_argument("--json", action="store_true", help="print a JSON list, one object per stage")
    add_budget_argument(parser)


def stage_row(capture) -> dict:
    """A JSON-ready dict for one capture with its tensor: description, shape, dtype and stats."""
    from tfdebug.core.stats import tensor_stats

    info = capture.info
    return {
        "name": info.name, "kind": info.kind, "site": info.site, "layer": info.layer,
        "shape": list(capture.shape), "dtype": str(capture.dtype).removeprefix("torch."),
        "axes": list(info.axes), "formula": info.formula,
        "stats": tensor_stats(capture.tensor, kind=info.kind).to_dict(),
    }


def _fmt(x) -> str:
    return "nan" if x is None else f"{x:.4g}"


def format_table(rows: list[dict]) -> str:
    """The captured stages' rows as an aligned text table (name, kind, shape, dtype, min, max, mean, nan, inf)."""
    header = ("stage", "kind", "shape", "dtype", "min", "max", "mean", "nan", "inf")
    lines = []
    for r in rows:
        s = r["stats"]
        lines.append((r["name"], r["kind"], "(" + ", ".join(map(str, r["shape"])) + ")", r["dtype"],
                      _fmt(s["min"]), _fmt(s["max"]), _fmt(s["mean"]), str(s["nan"]),
                      str(s["posinf"] + s["neginf"])))
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(line, widths)) for line in lines]
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Run one forward and print the table (or JSON list) of captured stages; returns the exit status."""
    from tfdebug.sessions.session import DebugSession

    rows = given_rows(args)  # a batch is sized before the model loads
    adapter = load_from_args(args)
    # Planned by the pass itself (one forward) unless a filter or a budget needs the plan first.
    session = DebugSession(adapter, **session_inputs(args, adapter, rows), stages=args.stages,
                           max_capture_bytes=budget_from_args(args), planning="lazy", keep=keep_from_args(args))
    warn_unknown(session)
    rows: list[dict] = []
    # Rows are made as each stage runs, so stages beyond the capture budget keep their stats.
    session.capture_all(on_capture=lambda capture: rows.append(stage_row(capture)))
    notes = sys.stderr if args.json else sys.stdout
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
    else:
        streams = ", ".join(f"{key} {tokens}" for key, tokens in session.tokens.items())
        print(f"model {adapter.describe()}, {streams}")
        print(format_table(rows))
        print(f"{len(rows)} stages")
    if session.max_capture_bytes is not None:
        print(session.capture_estimate().describe(), file=notes)
    if session.verification is not None:
        print(session.verification.describe(), file=notes)
    return 0


def warn_unknown(session) -> None:
    """Name the typed words the model has no token for, on stderr, with the closest known word when one is close;
    then the adapter's notes about the inputs (a special token typed as text …)."""
    print_unknown(session.unknown_words, getattr(session.adapter, "loaded", None))
    for note in session.notes:
        print(f"note: {escape_controls(note)}", file=sys.stderr)


def print_unknown(words, loaded) -> None:
    """One line on stderr per unknown word ("mum is not in the vocabulary; did you mean mom?").

    Control characters a typed word holds are printed escaped: raw, they would act on
    the terminal instead of being shown.
    """
    from tfdebug.io.limits import escape_controls
    from tfdebug.models.vocab import unknown_sentences, vocabularies_of

    for sentence in unknown_sentences(words, vocabularies_of(loaded)):
        print(f"tfdebug: {escape_controls(sentence)}", file=sys.stderr)
