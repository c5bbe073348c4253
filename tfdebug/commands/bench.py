"""`tfdebug bench`: capture overhead, step latency, memory and snapshot speed in one run."""

from __future__ import annotations

import argparse
import json

# The bench times the plain forward in a process that never tuned the allocator, and the
# tuned variant in a child process of its own.
TUNE_ALLOCATOR = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true",
                        help="fewer repeats, skip the 12-layer × 768 row, a 256 MB snapshot instead of 1 GB")
    parser.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # the test suite's smallest run
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="torch threads for the whole run (recorded in the report); default: torch's own")
    parser.add_argument("--generation", action="store_true",
                        help="only the generation section: per-token time with and without the KV cache at "
                             "prompt lengths 16, 128, 512, and the cost of capturing every stage")
    parser.add_argument("--real-size", action="store_true",
                        help="only the real-size section (minutes, ~6 GB): a Llama-3.2-1B-shaped model in bfloat16 "
                             "with random weights, saved and loaded as hf:FOLDER; load time, time to the first "
                             "stage, peak RSS, captured bytes")
    parser.add_argument("--seq-len", type=int, default=128, metavar="N",
                        help="the prompt length of the real-size section (default 128)")


def run(args: argparse.Namespace) -> int:
    from tfdebug.bench.report import format_report, run_all

    if args.threads is not None and args.threads < 1:
        from tfdebug.core.errors import ConfigError

        raise ConfigError("--threads must be at least 1.")
    if args.real_size:
        from tfdebug.bench.real_size import format_real_size, real_size_section

        if args.threads is not None:
            import torch

            torch.set_num_threads(args.threads)
        result = real_size_section(seq_len=args.seq_len, tiny=args.tiny)
        print(json.dumps(result, indent=1) if args.json else format_real_size(result))
        return 0
    if args.generation:
        from tfdebug.bench.generation import format_generation_only, generation_only

        result = generation_only(quick=args.quick, tiny=args.tiny, threads=args.threads)
        print(json.dumps(result, indent=1) if args.json else format_generation_only(result))
        return 0
    result = run_all(quick=args.quick, tiny=args.tiny, threads=args.threads)
    print(json.dumps(result, indent=1) if args.json else format_report(result))
    return 0
