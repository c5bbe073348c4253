"""`tfdebug capture`: run one forward headless (e.g. on a GPU server) and save it (snapshot, .npz or .pt)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

from tfdebug.commands.common import (add_budget_argument, add_model_arguments, budget_from_args, keep_from_args,
                                     given_rows, load_from_args, session_inputs)
from tfdebug.sessions.peak import VERIFY, check_mode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug capture`'s options to `parser`."""
    add_model_arguments(parser)
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="the file to write; its suffix picks the format: .safetensors (a snapshot), .npz or .pt")
    parser.add_argument("--follow-symlinks", action="store_true",
                        help="when --out is a symbolic link, write to the file it points to (else refused)")
    parser.add_argument("--stages", nargs="*", default=None, metavar="PATTERN",
                        help="only stages whose names match these glob patterns (e.g. 'dec.*.cross_attn.*')")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    parser.add_argument("--verify", choices=VERIFY, default="auto",
                        help="check the pass against the unmodified model: auto (default) with a second forward "
                             "when it fits in memory, else each layer's attention in the pass; always with the second "
                             "forward (refused when it does not fit); attention: each layer's attention in the pass "
                             "against the model's own function, no second forward (logits and layer inputs not "
                             "compared); never (the summary says the pass was not verified)")
    add_budget_argument(parser)


class ProgressBar:
    """A one-line progress bar on stderr, drawn only once the work has taken more than `delay` seconds.

    Drawn with carriage returns on a terminal; elsewhere (logs, pipes) it stays silent
    unless `force` is set.
    """

    def __init__(self, stream=None, delay: float = 0.5, width: int = 30, force: bool = False,
                 enabled: bool = True):
        self.stream = stream if stream is not None else sys.stderr
        self.delay, self.width = delay, width
        self.enabled = enabled and (force or getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self.drawn = False

    def update(self, label: str, done: float, total: float, unit: str = "") -> None:
        """Redraw the bar at `done` of `total` (in `unit`) after `label`, once `delay` has passed."""
        if not self.enabled or time.monotonic() - self.start < self.delay:
            return
        share = min(1.0, done / total) if total else 1.0
        filled = int(share * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{label:<10} [{bar}] {share:4.0%} {_amount(done, unit)}/{_amount(total, unit)}")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """End the bar's line, when it was drawn."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def _amount(x: float, unit: str) -> str:
    if unit == "B":
        return f"{x / 1e6:.1f} MB"
    return f"{int(x)}"


def run(args: argparse.Namespace) -> int:
    """Run one forward headless and write its stages to `--out`; returns the exit status."""
    import torch

    from tfdebug.core.budget import ATTENTION_KINDS, default_capture_budget, format_bytes
    from tfdebug.core.errors import ExportError, InputError
    from tfdebug.io.atomic import check_output
    from tfdebug.core.recorder import Recorder, matches
    from tfdebug.io.exports import export_pass
    from tfdebug.io.formats import format_for
    from tfdebug.io.recording import Recording
    from tfdebug.sessions.peak import check_fits, check_room_now, fit_default_budget, peak_of, stated_peak
    from tfdebug.sessions.session import DebugSession
    from tfdebug.commands.stages import warn_unknown

    out = os.path.realpath(args.out) if args.follow_symlinks else args.out
    fmt = format_for(out, scope="pass")  # an unknown suffix is refused before the model loads
    check_output(out, ExportError)  # so is a folder that does not exist, a link, a pipe
    bar = ProgressBar(enabled=not args.quiet)
    rows = given_rows(args)  # a batch is sized before the model loads
    adapter = load_from_args(args)
    budget_bytes = budget_from_args(args)
    default = budget_bytes is None
    if default:  # by default a share of what is free now, every layer's attention kept first
        budget_bytes = default_capture_budget(adapter.device)
    session = DebugSession(adapter, **session_inputs(args, adapter, rows), stages=args.stages,
                           max_capture_bytes=budget_bytes, keep=keep_from_args(args, pinned=ATTENTION_KINDS))
    if args.verify == "attention":  # the peak then counts no second forward
        session.in_pass = check_mode(args.verify, True, adapter.checks_in_pass)
    # The default budget leaves room for the pass itself (its stages in flight, the check); a given one is kept.
    peak = (fit_default_budget(session) if default else peak_of(session)) if session.max_capture_bytes is not None \
        else None
    if not args.quiet:
        warn_unknown(session)
    # A pass the kernel would kill part way is refused before it starts; one that fits only without the check
    # against the model runs without it.
    fits = check_fits(session, peak) if peak is not None else True
    if not fits and args.verify == "always":
        raise InputError(f"With the check against the model this pass would need {format_bytes(peak.total)}, more "
                         "than there is: capture with --verify auto (checked when it fits), --verify attention "
                         "or --verify never.")
    mode = check_mode(args.verify, fits, adapter.checks_in_pass)
    if not fits and args.verify == "auto" and not args.quiet:
        print(f"tfdebug: the check against the model is left out: with its second forward the pass would need "
              f"{format_bytes(peak.total)}, more than there is"
              + ("; each layer's attention is checked in the pass instead" if mode == "attention" else ""),
              file=sys.stderr)
    session.in_pass = mode
    if peak is not None:  # stated for the pass as it will run: the whole check's part only where it runs
        peak = stated_peak(session, peak, mode)
        if not args.quiet:
            print(f"tfdebug: {session.capture_estimate().describe()}; {peak.describe()}", file=sys.stderr)
    budget = session.new_budget()
    expected = sum(1 for c in session.plan if matches(c.name, args.stages))
    if expected == 0:
        raise InputError(f"No stage matches {' '.join(args.stages or [])}; see `tfdebug stages` for the names.")
    count = 0

    def on_capture(capture):
        nonlocal count
        count += 1
        bar.update("forward", count, expected)
        budget.keep_or_drop(capture)

    try:
        with torch.no_grad(), Recorder(adapter.module, args.stages, on_capture=on_capture) as rec:
            output = session.forward()
        if mode == "attention" and session.verify_in_pass() is None and fits and check_room_now(session) is None:
            mode = "whole"  # a site the check in the pass cannot follow (attention written in the model's own code)
        if mode == "whole":  # before the file is written: the check's peak and the export's do not add up
            session.verify(output)
        del output
        recording = Recording.from_session(session, rec.captures)
        export_pass(recording, out, fmt=fmt.suffix,
                    progress=lambda done, total: bar.update("writing", done, total, "B"))
    finally:
        bar.close()
    if not args.quiet:
        from tfdebug.core.recipes import RECIPE_KINDS
        planes = sum(1 for c in recording.captures if c.recipe and c.info.kind in RECIPE_KINDS)  # not the repeats
        stored = (f", {planes} attention planes as recipes" if planes and fmt.suffix == ".safetensors" else "")
        print(f"wrote {args.out}: {len(recording.captures)} stages{stored}, {format_bytes(os.path.getsize(out))} "
              f"({adapter.describe()})")
        if budget.dropped:
            kinds = Counter(c.info.kind for c in session.plan if c.name in set(budget.dropped))
            print(f"left out {len(budget.dropped)} stages beyond the {format_bytes(session.max_capture_bytes)} "
                  f"budget, keeping those {session.keep.describe()}; left out by kind: "
                  + ", ".join(f"{n} {kind}" for kind, n in kinds.most_common()))
        if session.verification is not None:
            print(session.verification.describe())
        elif mode != "whole":
            print("not verified: the output was not checked against the unmodified model"
                  + (" (--verify never)" if args.verify == "never" else
                     " (the check in the pass cannot follow this model's attention, and a second pass does not fit)"
                     if mode == "attention" else ""))
    return 0
