"""`tfdebug patch`: activation patching. Two passes, a clean one (--input) and a corrupted one (--corrupt), then
every residual row at every position of the corrupted pass (or, with --heads, every head of every attention)
replaced by the clean pass's and run again (with --heads --per-position, each head at each position; the
patched copies run batched, --batch at a time): the fraction of the logit difference each cell brings back, as a
table, JSON or CSV (fields in docs/why.md)."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from tfdebug.commands.common import (add_model_arguments, add_table_format_arguments, load_from_args, texts_from_args,
                                     token_words)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug patch`'s options to `parser`."""
    add_model_arguments(parser)
    parser.add_argument("--corrupt", action="append", default=[], metavar="KEY=TEXT", required=True,
                        help="the corrupted text, by input key as --input (e.g. prompt='The capital of Italy is'); "
                             "of another length, its positions pair as --align says")
    parser.add_argument("--align", default=None, metavar="PAIRS",
                        help="which clean position goes into which corrupted one, as CLEAN:CORRUPTED pairs "
                             "(e.g. 0:0,4:3,5:4; negative from the end); default: position by position, or for "
                             "texts of different lengths the shared first tokens, then the rest from the end")
    parser.add_argument("--target", default=None, metavar="TOKEN",
                        help="the token whose logit is measured (a vocabulary entry, text read as one token, or "
                             "#ID); default: the clean pass's prediction")
    parser.add_argument("--contrast", default=None, metavar="TOKEN",
                        help="the token it is measured against; default: the corrupted pass's prediction")
    parser.add_argument("--position", type=int, default=-1, metavar="N",
                        help="the position whose prediction is measured (default -1, the last)")
    parser.add_argument("--heads", action="store_true",
                        help="patch each attention head's output (its P·V at every position) in every attention, "
                             "not each residual cell: a layers × heads table")
    parser.add_argument("--per-position", action="store_true",
                        help="with --heads: patch each head at each position alone (layers × heads × positions)")
    parser.add_argument("--batch", type=int, default=None, metavar="B",
                        help="patched copies of the corrupted pass run in one forward (default: as many as the "
                             "capture budget holds, at most 32; 1: one forward a cell)")
    parser.add_argument("--stage", default=None, metavar="NAME",
                        help="patch this one stage and run on, not a sweep: the fraction recovered and every later "
                             "stage the patch moved (whole, or only --at N and/or --head H of it)")
    parser.add_argument("--at", type=int, default=None, metavar="N",
                        help="with --stage: take only token position N from the clean pass")
    parser.add_argument("--head", type=int, default=None, metavar="H",
                        help="with --stage: take only head H from the clean pass")
    add_table_format_arguments(parser, "the patched cells")


def run(args: argparse.Namespace) -> int:
    """Run a clean and a corrupted pass and print the activation patching's effects; returns the exit status."""
    from tfdebug.core.errors import InputError
    from tfdebug.sessions.patching import Patcher
    from tfdebug.sessions.why import token_id

    adapter = load_from_args(args)
    clean = texts_from_args(args, adapter)
    corrupt = dict(clean)
    for item in args.corrupt:
        key, sep, text = item.partition("=")
        if not sep:
            raise InputError(f"--corrupt takes KEY=TEXT (e.g. prompt='The capital of Italy is'), not {item!r}.")
        corrupt[key] = text
    corrupt = adapter.check_texts(corrupt)
    if args.per_position and not args.heads:
        raise InputError("--per-position patches each head at each position; it goes with --heads (the residual "
                         "sweep is already per position).")
    if (args.at is not None or args.head is not None) and args.stage is None:
        raise InputError("--at and --head pick part of the stage --stage names; give --stage too.")
    if args.stage is not None and (args.heads or args.per_position):
        raise InputError("--stage patches one stage and runs on; --heads and --per-position are sweeps.")
    if args.batch is not None and args.batch < 1:
        raise InputError(f"--batch takes a whole number of at least 1, not {args.batch}.")
    patcher = Patcher(adapter, clean, corrupt, batch=args.batch, align=args.align)
    if not -patcher.count <= args.position < patcher.count:
        raise InputError(f"Position {args.position} is outside the corrupted prompt's {patcher.count} tokens.")
    if not patcher.alignment.identity:
        print(patcher.alignment.describe(), file=sys.stderr)
    target = token_id(adapter, args.target) if args.target is not None else \
        int(patcher.logits(patcher.clean)[0, patcher.clean_position(args.position)].argmax())
    contrast = token_id(adapter, args.contrast) if args.contrast is not None else \
        int(patcher.logits(patcher.corrupt)[0, args.position].argmax())
    if contrast == target:
        contrast = None
    if args.stage is not None:
        return _patch_one(patcher, args, target, contrast)
    if args.heads:
        if not patcher.head_stages:
            raise InputError(f"{adapter.name} shows no attention's output by head (P·V before the heads merge), so "
                             "there is no head to patch; patch the residual cells instead (without --heads).")
        columns = max(patcher.heads(stage) for stage in patcher.head_stages)
        across = "head_position" if args.per_position else "head"
        shape = f"{len(patcher.head_stages)} attentions × {columns} heads" + \
            (f" × {patcher.count} positions" if args.per_position else "")
        print(f"{shape}: {_forwards(patcher, across)}", file=sys.stderr)
        sweep = patcher.head_sweep(target, contrast, args.position,
                                   positions=range(patcher.count) if args.per_position else None)
        tokens = [f"head {h}" for h in sweep.positions] if not args.per_position else \
            sweep.labels(patcher.clean.token_labels())
    else:
        print(f"{len(patcher.rows)} rows × {patcher.count} positions: {_forwards(patcher, 'position')}",
              file=sys.stderr)
        sweep = patcher.sweep(target, contrast, args.position)
        tokens = sweep.labels(patcher.clean.token_labels())
    word = token_words(adapter)
    if args.json:
        data = sweep.to_dict()
        data.update(target=target, contrast=contrast, target_token=word(target), contrast_token=word(contrast))
        if sweep.across in ("position", "head_position"):
            data["tokens"] = [tokens[p] if p < len(tokens) else "" for p in sweep.positions]
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    if args.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        if sweep.across == "head_position":
            out.writerow(["stage", "head", "position", "token", "recovered", "ld_patched"])
        else:
            out.writerow(["stage", sweep.across, "token", "recovered", "ld_patched"])
        for stage, fractions, lds in zip(sweep.rows, sweep.recovered, sweep.patched):
            for column, fraction, ld in zip(sweep.columns, fractions, lds):
                head, p = column if isinstance(column, tuple) else (None, column)
                token = tokens[p] if sweep.across != "head" and p < len(tokens) else ""
                out.writerow([stage, *([head] if head is not None else []), p, token, f"{fraction:.6g}", f"{ld:.9g}"])
        return 0
    what = f"logit({word(target)!r})" + (f" − logit({word(contrast)!r})" if contrast is not None else "")
    print(f"model {adapter.describe()}; {what}: clean {sweep.clean:.5g}, corrupted {sweep.corrupt:.5g}; "
          f"each cell: the fraction recovered when that cell is patched ({sweep.forwards} cells in "
          f"{sweep.batches} forwards of {sweep.batch})")
    if sweep.across == "head_position":
        _print_blocks(sweep, tokens)
        return 0
    header = ["stage"] + [tokens[p] if sweep.across == "head" else f"{p}:{tokens[p] if p < len(tokens) else ''}"
                          for p in sweep.positions]
    _print_table(header, [[stage] + [_cell(f) for f in fractions]
                          for stage, fractions in zip(sweep.rows, sweep.recovered)])
    return 0


def _patch_one(patcher, args: argparse.Namespace, target: int, contrast: int | None) -> int:
    """`--stage`: the one patch, run on; its fraction recovered and the stages it moved (fields in docs/why.md)."""
    from tfdebug.sessions.patch_one import patch_one

    patched = patch_one(patcher, args.stage, args.at, args.head, target, contrast, args.position)
    word = token_words(patcher.adapter)
    if args.json:
        data = patched.to_dict()
        data.update(target_token=word(target), contrast_token=word(patched.contrast))
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    moved = [row for row in patched.moved.stages if row.diverges]
    if args.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["stage", "max_abs_diff", "mean_abs_diff"])
        for row in moved:
            out.writerow([row.name, f"{row.max_abs:.6g}", f"{row.mean_abs:.6g}"])
        return 0
    what = f"logit({word(target)!r})" + (f" − logit({word(patched.contrast)!r})" if patched.contrast is not None
                                          else "")
    print(f"model {patcher.adapter.describe()}; {patched.stage} ({patched.scope}) put into the corrupted pass, "
          f"which ran on. {what}: clean {patched.clean:.5g}, corrupted {patched.corrupt:.5g}, patched "
          f"{patched.patched:.5g}: {patched.recovered:.2f} recovered.")
    print(f"{len(moved)} stages moved (max |Δ| against the corrupted pass):")
    _print_table(["stage", "max |Δ|"], [[row.name, f"{row.max_abs:.3g}"] for row in moved])
    return 0


def _forwards(patcher, across: str) -> str:
    """'155 cells in 5 forwards of 31' (the batch from --batch or the capture budget)."""
    cells, batch, forwards = patcher.batching(across)
    return f"{cells} cells in {forwards} forwards of {batch}"


def _cell(fraction: float) -> str:
    """A fraction recovered as the table prints it; blank where nothing was patched (NaN)."""
    return "" if fraction != fraction else f"{fraction:+.2f}"


def _print_table(header: list[str], lines: list[list[str]]) -> None:
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for line in lines:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)))


def _print_blocks(sweep, tokens: list[str]) -> None:
    """A head × position sweep: one block a layer, heads down, positions across."""
    header = ["head"] + [f"{p}:{tokens[p] if p < len(tokens) else ''}" for p in sweep.positions]
    width = len(sweep.positions)
    for stage, fractions in zip(sweep.rows, sweep.recovered):
        print(f"\n{stage}")
        _print_table(header, [[str(h)] + [_cell(f) for f in fractions[i * width:(i + 1) * width]]
                              for i, h in enumerate(sweep.heads)])
