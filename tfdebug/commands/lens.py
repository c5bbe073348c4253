"""`tfdebug lens`: one forward, then the logit lens (every residual stage read out as logits), as a table,
JSON or CSV (fields in docs/why.md)."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from tfdebug.commands.common import (add_model_arguments, add_snapshot_argument, add_table_format_arguments,
                                     token_words, why_from_args)

#: positions a table shows when none are asked for: the last ones (a long prompt's lens is never made whole)
DEFAULT_POSITIONS = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug lens`'s options to `parser`."""
    add_model_arguments(parser)
    add_snapshot_argument(parser)
    parser.add_argument("--target", default=None, metavar="TOKEN",
                        help="the token whose probability and rank each cell shows (a vocabulary entry, text the "
                             "tokenizer reads as one token such as ' Paris', or #ID); default: each position's "
                             "final prediction")
    parser.add_argument("--positions", type=int, nargs="+", default=None, metavar="N",
                        help=f"token positions (negative counts from the end; default the last {DEFAULT_POSITIONS})")
    parser.add_argument("--top", type=int, default=5, metavar="K", help="top tokens per cell (default 5)")
    add_table_format_arguments(parser, "the cells")


def run(args: argparse.Namespace) -> int:
    """Run one forward (or read a snapshot's pass) and print the logit lens as a table; returns the exit status."""
    from tfdebug.core.errors import InputError
    from tfdebug.sessions.why import token_id

    adapter, why = why_from_args(args)
    target = token_id(adapter, args.target) if args.target is not None else None
    count = why.tensor("logits").shape[0]
    positions = args.positions if args.positions is not None else list(range(max(0, count - DEFAULT_POSITIONS), count))
    for p in positions:
        if not -count <= p < count:
            raise InputError(f"Position {p} is outside the prompt's {count} tokens.")
    grid = why.lens(positions, target, max(1, min(args.top, 100)))
    word = token_words(adapter)
    tokens = why.token_labels()
    if args.json:
        data = grid.to_dict()
        for row in data["cells"]:
            for cell in row:
                cell["top_tokens"] = [word(i) for i, _ in cell["top"]]
                cell["target_token"] = word(cell["target"])
        data["tokens"] = [tokens[p] if p < len(tokens) else "" for p in grid.positions]
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    if args.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["stage", "position", "token", "top1", "p_top1", "target", "p_target", "rank", "entropy", "kl"])
        for name, row in zip(grid.rows, grid.cells):
            for p, cell in zip(grid.positions, row):
                out.writerow([name, p, tokens[p] if p < len(tokens) else "", word(cell.top[0][0]),
                              f"{cell.top[0][1]:.6g}", word(cell.target), f"{cell.p_target:.6g}", cell.rank,
                              f"{cell.entropy:.6g}", f"{cell.kl:.6g}"])
        return 0
    print(f"model {adapter.describe()}; each cell: top-1 token (p), then the target's rank")
    header = ["stage"] + [f"{p}:{tokens[p] if p < len(tokens) else ''}" for p in grid.positions]
    lines = [[name] + [f"{word(c.top[0][0])} ({c.top[0][1]:.2f}) r{c.rank}" for c in row]
             for name, row in zip(grid.rows, grid.cells)]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for line in lines:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)))
    return 0

