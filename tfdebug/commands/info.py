"""`tfdebug info FILE`: validate a snapshot and summarise it (model, tokens, stages, bytes)."""

from __future__ import annotations

import argparse
import json
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug info`'s options to `parser`."""
    parser.add_argument("file", metavar="FILE", help="a .safetensors snapshot")
    parser.add_argument("--verify", action="store_true",
                        help="also read every tensor byte and check it (complete, true/false stages 0 or 1, "
                             "no NaN or infinity where the snapshot was saved finite)")
    parser.add_argument("--json", action="store_true", help="print the manifest as JSON instead of a summary")
    parser.add_argument("--tokens", action="store_true",
                        help="print every token of each input (a long one is otherwise cut to one line)")


TOKEN_LINE = 100  # the widest a token stream's line is printed without --tokens


def token_line(stream: str, words: list[str], every: bool = False) -> str:
    """A stream's tokens on one line: whole when they fit in TOKEN_LINE characters (or `every`), else their
    start, an ellipsis and how many there are."""
    whole = f"{stream:<8} {' '.join(words)}"
    if every or len(whole) <= TOKEN_LINE:
        return whole
    tail = f"… ({len(words):,} tokens; --tokens prints them all)"
    head = whole[:TOKEN_LINE - len(tail) - 1].replace("\n", " ")
    head = head.rsplit(" ", 1)[0] if " " in head[len(stream) + 1:].strip() else head  # whole tokens
    return head.rstrip() + " " + tail


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]
    lines = [header, tuple("-" * w for w in widths), *rows]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def summary(path: str, doc: dict, nbytes: int, every_token: bool = False) -> str:
    """The human-readable summary of a validated manifest (a long token stream cut to a line unless
    `every_token`)."""
    config = doc.get("model_config") or {}
    keys = ("n_layer", "n_heads", "n_embd", "hidden_dim", "vocab_size", "src_vocab_size")
    # Only whole numbers are printed: the rest of a config is the file's own business.
    shape = ", ".join(f"{k}={config[k]}" for k in keys if isinstance(config.get(k), int))
    stages = doc["stages"]
    rows = [(s["name"], s["kind"], "(" + ", ".join(map(str, s["shape"])) + ")", s["dtype"],
             " ".join(s.get("axes", [])), "edited" if s.get("edited") else "") for s in stages]
    return "\n".join([
        f"snapshot {path}: format {doc['format_version']}, written by tfdebug {doc.get('tfdebug_version', '?')}",
        f"model    {doc.get('model') or '?'} on {doc['device']} ({doc['dtype']}){': ' + shape if shape else ''}",
        *(token_line(stream, words, every_token) for stream, words in doc["tokens"].items()),
        *([f"adapter  {doc['adapter']}"] if doc.get("adapter") else []),
        *(backward_lines(doc["backward"]) if "backward" in doc else []),
        f"stages   {len(stages)}, {nbytes:,} bytes of tensors, file {os.path.getsize(path):,} bytes",
        "",
        _table(("stage", "kind", "shape", "dtype", "axes", "note"), rows),
    ])


def backward_lines(entry: dict) -> list[str]:
    """What a backward pass's snapshot says of itself: the objective, its value, the first non-finite gradient."""
    first = entry.get("first_nonfinite")
    return [f"backward a backward pass: each stage holds ∂L/∂stage, in backward order (logits first); "
            f"L = {entry['objective']} = {float(entry['loss']):.6g}",
            f"         first non-finite gradient: {first or 'none'}"]


def run(args: argparse.Namespace) -> int:
    """Validate a snapshot and print its summary or manifest (every tensor checked with --verify); returns the exit
    status."""
    from tfdebug.io.manifest import tensor_bytes
    from tfdebug.io.snapshot import read_manifest

    # Reading and checking the header needs no torch (a 2 s import); only --verify reads tensors.
    doc = read_manifest(args.file)  # validates header, manifest and tensor list
    verified = None
    if args.verify:  # the same with and without --json: every tensor byte is read and checked, in bounded memory
        from tfdebug.io.verify import verify_snapshot

        verified = verify_snapshot(args.file)
    text = summary(args.file, doc, tensor_bytes(doc), args.tokens) if not args.json else None
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=1))
        return 0
    print(text)
    if verified is not None:
        note = (f"; {len(verified.nonfinite)} hold NaN or infinity (e.g. {verified.nonfinite[0]})"
                if verified.nonfinite else "")
        print(f"all {verified.stages} stages read back ({verified.nbytes:,} bytes){note}")
    return 0
