"""`tfdebug attribute`: one forward, then the direct logit attribution of logit(target) − logit(contrast) at a
position to the embeddings, every head, every block and the biases (fields in docs/why.md)."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from tfdebug.commands.common import (add_model_arguments, add_snapshot_argument, add_table_format_arguments,
                                     token_words, why_from_args)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug attribute`'s options to `parser`."""
    add_model_arguments(parser)
    add_snapshot_argument(parser)
    parser.add_argument("--target", default=None, metavar="TOKEN",
                        help="the token to explain (a vocabulary entry, text the tokenizer reads as one token such "
                             "as ' Paris', or #ID); default: the model's prediction at the position")
    parser.add_argument("--contrast", default=None, metavar="TOKEN",
                        help="the token it is compared with (\"why ' Paris' and not ' London'\"); default: none, the "
                             "target's logit alone is split")
    parser.add_argument("--position", type=int, default=-1, metavar="N",
                        help="the token position whose prediction is explained (default -1, the last)")
    parser.add_argument("--top", type=int, default=12, metavar="K", help="the table lists the K largest terms")
    add_table_format_arguments(parser, "every term")


def run(args: argparse.Namespace) -> int:
    """Run one forward and print the direct logit attribution of the target (less the contrast); returns the exit
    status."""
    from tfdebug.core.errors import InputError
    from tfdebug.sessions.why import token_id

    adapter, why = why_from_args(args)
    target = token_id(adapter, args.target) if args.target is not None else None
    contrast = token_id(adapter, args.contrast) if args.contrast is not None else None
    logits = why.tensor(why.logits_stage)
    if not -logits.shape[0] <= args.position < logits.shape[0]:
        raise InputError(f"Position {args.position} is outside the prompt's {logits.shape[0]} tokens.")
    if target is None:
        target = int(logits[args.position].argmax())
    result = why.attribute(target, contrast, args.position)
    word = token_words(adapter)
    if args.json:
        data = result.to_dict()
        data["target_token"], data["contrast_token"] = word(target), word(contrast)
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    if args.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["label", "kind", "layer", "head", "value", "stage"])
        for t in result.terms:
            out.writerow([t.label, t.kind, "" if t.layer is None else t.layer, "" if t.head is None else t.head,
                          f"{t.value:.9g}", t.stage])
        return 0
    what = f"logit({word(target)!r})" + (f" − logit({word(contrast)!r})" if contrast is not None else "")
    tokens = why.token_labels()
    at = result.position
    print(f"model {adapter.describe()}; {what} at position {at}"
          + (f" ({tokens[at]!r})" if at < len(tokens) else ""))
    for note in result.notes:
        print(note)
    print(f"the pass's own value {result.logit_diff:.6g}; the terms sum to {result.total:.6g} "
          f"(gap {result.gap:.2g})")
    print(f"convention: {result.convention}")
    width = max(len(t.label) for t in result.terms)
    for t in sorted(result.terms, key=lambda t: -abs(t.value))[:max(1, args.top)]:
        print(f"  {t.label.ljust(width)}  {t.value:+.5f}")
    print("per layer: " + ", ".join(f"L{layer} {value:+.4f}" for layer, value in sorted(result.layers().items())))
    return 0
