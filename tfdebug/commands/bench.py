"""`tfdebug bench`: capture overhead, a session's cost, step latency, memory, snapshot speed, the peers.

The default run ends within about 5 minutes on 2 cores and `--quick` within one: each
section's sizes come from the run's profile, and a section that would pass the time
budget is skipped and named. A machine busier than `--max-load` is refused.
"""

from __future__ import annotations

import argparse
import json

from tfdebug.bench.runner import SECTIONS  # imports no torch: `tfdebug bench --help` stays quick

# The bench times the plain forward in a process that never tuned the allocator, and the
# tuned variant in a child process of its own.
TUNE_ALLOCATOR = False



def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug bench`'s options to `parser`."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats: under a minute")
    size.add_argument("--full", action="store_true",
                      help="the largest sizes and most repeats (the 12-layer × 768 row, a 1 GB snapshot): long")
    parser.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # the test suite's smallest run
    parser.add_argument("--section", action="append", default=None, choices=SECTIONS, metavar="NAME",
                        help="run only this section (repeatable): " + ", ".join(SECTIONS))
    parser.add_argument("--peers", action="store_true",
                        help="only the peers side by side on one Hugging Face GPT-2 shape at 256, 1,024 and 4,096 "
                             "tokens (HF sdpa and eager, tfdebug, TransformerLens, nnsight, TorchLens: those "
                             "installed), and their needs at 32,768")
    parser.add_argument("--scale", action="store_true",
                        help="only the long prompts: bytes held and peak RSS of capture-all at 1k, 4k and 8k tokens "
                             "(32k with --full) on the GPT-2 shape, against the planes kept whole and "
                             "TransformerLens' run_with_cache, each in a process of its own; and the peak "
                             "`tfdebug capture` states against the peak RSS it reaches on SmolLM-135M's shape at 2k "
                             "and 8k tokens (32k with --full)")
    parser.add_argument("--lengths", type=int, nargs="+", default=None, metavar="N",
                        help="with --scale or --peers: these prompt lengths instead of the profile's (e.g. 1024 32768)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--out", metavar="FILE", default=None, help="also write the JSON result to FILE")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="torch threads for the whole run (recorded in the report); default: torch's own")
    parser.add_argument("--max-load", type=float, default=None, metavar="L",
                        help="refuse to start (and stop between sections) above this 1-minute load average; "
                             "default 1.5 per CPU; 0 or less: never refuse")
    parser.add_argument("--generation", action="store_true",
                        help="only the generation section: per-token time with and without the KV cache at "
                             "prompt lengths 16, 128, 512, and the cost of capturing every stage")
    parser.add_argument("--real-size", action="store_true",
                        help="only the real-size section (minutes, ~6 GB): a Llama-3.2-1B-shaped model in bfloat16 "
                             "with random weights, saved and loaded as hf:FOLDER; load time, time to the first "
                             "stage, peak RSS, captured bytes")
    parser.add_argument("--seq-len", type=int, default=128, metavar="N",
                        help="the prompt length of the real-size section (default 128)")
    parser.add_argument("--in-window", action="store_true",
                        help="with --real-size: open the model in the window (offscreen) as a person does and "
                             "step it: time to the first painted stage, step latency to the painted heatmap, peak RSS")
    parser.add_argument("--whole-pass", action="store_true",
                        help="with --real-size --in-window: press F10 until the pass ends (hours on a CPU at 4,096 "
                             "tokens): every stage reached, bytes kept, peak RSS against the weights and kept bytes")
    parser.add_argument("--max-capture-mb", type=float, default=None, metavar="MB",
                        help="with --whole-pass: the capture budget chosen in the window's Capture Budget dialog "
                             "(default: the window's default, half of the free memory)")
    parser.add_argument("--log", metavar="FILE", default=None,
                        help="with --whole-pass: append each step to FILE as it happens (one JSON object a line)")


def run(args: argparse.Namespace) -> int:
    """Run the benchmark sections `args` asks for and print (or save) their figures; returns the exit status."""
    from tfdebug.bench.runner import check_quiet, load_limit
    from tfdebug.core.errors import ConfigError

    if args.threads is not None and args.threads < 1:
        raise ConfigError("--threads must be at least 1.")
    if args.real_size:
        from tfdebug.bench.real_size import format_real_size, real_size_section

        if args.threads is not None:
            import torch

            torch.set_num_threads(args.threads)
        if args.in_window and args.whole_pass:
            from tfdebug.bench.real_size_pass import whole_pass_in_window

            result = whole_pass_in_window(seq_len=args.seq_len, budget_mb=args.max_capture_mb, tiny=args.tiny,
                                          log=args.log)
            print(json.dumps(result, indent=1))
            return 0
        if args.in_window:
            from tfdebug.bench.real_size import format_real_size_window, real_size_window_section

            result = real_size_window_section(seq_len=args.seq_len, tiny=args.tiny)
            print(json.dumps(result, indent=1) if args.json else format_real_size_window(result))
            return 0
        result = real_size_section(seq_len=args.seq_len, tiny=args.tiny)
        print(json.dumps(result, indent=1) if args.json else format_real_size(result))
        return 0
    limit = load_limit() if args.max_load is None else (args.max_load if args.max_load > 0 else None)
    check_quiet(limit)
    if args.generation:
        from tfdebug.bench.generation import format_generation_only, generation_only

        result = generation_only(quick=args.quick, tiny=args.tiny, threads=args.threads)
        text = format_generation_only(result)
    else:
        from tfdebug.bench.report import format_report
        from tfdebug.bench.sections import run_all

        sections = list(args.section or [])
        sections += (["peers"] if args.peers else []) + (["scale"] if args.scale else [])
        profile = "tiny" if args.tiny else "quick" if args.quick else "full" if args.full else "default"
        result = run_all(profile, sections or None, threads=args.threads, load_limit=limit,
                         lengths=tuple(args.lengths) if args.lengths else None)
        text = format_report(result)
    if args.out:
        from tfdebug.core.errors import ExportError
        from tfdebug.io.atomic import atomic_write

        with atomic_write(args.out, ExportError) as f:
            f.write((json.dumps(result, indent=1) + "\n").encode("utf-8"))
    print(json.dumps(result, indent=1) if args.json else text)
    return 0
