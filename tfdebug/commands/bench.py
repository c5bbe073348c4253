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
    parser.add_argument("--remote", action="store_true",
                        help="only the remote-session section: bytes per step and step latency over loopback "
                             "against the same pass local, at 256², 1024² and 4096² stages")


def run(args: argparse.Namespace) -> int:
    from tfdebug.bench.report import format_report, run_all

    if args.threads is not None and args.threads < 1:
        from tfdebug.core.errors import ConfigError

        raise ConfigError("--threads must be at least 1.")
    if args.generation:
        from tfdebug.bench.generation import format_generation_only, generation_only

        result = generation_only(quick=args.quick, tiny=args.tiny, threads=args.threads)
        print(json.dumps(result, indent=1) if args.json else format_generation_only(result))
        return 0
    if args.remote:
        from tfdebug.bench.remote import format_remote, remote_section

        result = remote_section((64, 128) if args.tiny else (256, 1024, 4096), 3 if args.tiny else 10)
        print(json.dumps(result, indent=1) if args.json else "\n".join(format_remote(result)).lstrip())
        return 0
    result = run_all(quick=args.quick, tiny=args.tiny, threads=args.threads)
    print(json.dumps(result, indent=1) if args.json else format_report(result))
    return 0
