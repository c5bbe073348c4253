"""`tfdebug gui` (the default command): open the debugger window.

Only argparse at import time: cli.py imports this module whenever `gui` is the command
(the default), and Qt loads only once the window is really opened.
"""

from __future__ import annotations

import argparse

from tfdebug.commands.common import add_budget_argument, add_decoding_arguments, add_placement_arguments, model_help


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug gui`'s options to `parser`."""
    parser.add_argument("--model", default=None, help=model_help("the last session's"))
    parser.add_argument("--input", action="append", default=[], metavar="KEY=TEXT",
                        help="a text the model takes, by its input key (repeatable), e.g. prompt='Once upon'")
    parser.add_argument("--src", default=None, help="the translator's source sentence (same as --input src=TEXT)")
    parser.add_argument("--tgt", default=None, help="the translator's target prefix (same as --input tgt=TEXT)")
    parser.add_argument("--chat", action="store_true",
                        help="turn the input bar's Chat toggle on: the text goes through the tokenizer's chat template")
    parser.add_argument("--device", default=None,
                        help="cpu, cuda, cuda:N, mps or auto (default: the device chosen in the window last time, "
                             "else auto: the first GPU when there is one, else cpu)")
    add_placement_arguments(parser, dtype_default=None)  # --dtype, --device-map, --download: as every command
    parser.add_argument("--generate", action="store_true",
                        help="generate token by token (KV cache): each step's stages are gen.{t}.…; "
                             "Next Token (Ctrl+T) and Run to Token (Ctrl+Shift+T) step by token")
    add_decoding_arguments(parser)
    parser.add_argument("--lang", default=None, choices=("en", "zh"),
                        help="the window's language (default: the one chosen in View > Language, else the "
                             "system locale's)")
    add_budget_argument(parser, with_keep=False)  # the window chooses by where the user is
    parser.add_argument("--connect", default=None, metavar="ADDRESS",
                        help="attach to tfdebug serve at ADDRESS (the line it printed): the model runs there")
    parser.add_argument("--token", default=None, help="the token tfdebug serve printed (with --connect)")
    parser.add_argument("--server-key", default=None, metavar="KEY",
                        help="an encrypted server's public key, as tfdebug serve printed it (with --connect)")
    parser.add_argument("--fresh", action="store_true",
                        help="start from the defaults (the demo's first example), not the last session "
                             "(as File > New Session does)")
    parser.add_argument("--goto", default=None, metavar="STAGE", help="run to this stage after opening")
    parser.add_argument("--screenshot", default=None, metavar="FILE.png",
                        help="render the window (at --goto), save it as PNG and exit; works headless "
                             "with QT_QPA_PLATFORM=offscreen")


def run(args: argparse.Namespace) -> int:
    """Open the debugger window (after checking the GUI can start); returns the exit status."""
    from tfdebug.ui.shell.system_check import check_gui_can_start

    check_gui_can_start()  # before Qt loads: a missing library is a sentence, not a core dump
    from tfdebug.commands.common import given_texts
    from tfdebug.ui.app import run_app

    from tfdebug.commands.common import budget_from_args, settings_from_args

    budget_from_args(args)  # a negative budget is refused before the window opens
    if args.screenshot is not None:
        from tfdebug.core.errors import ExportError
        from tfdebug.io.atomic import check_output

        check_output(args.screenshot, ExportError)  # a link, pipe or device is refused before the window opens
    if args.device_map is not None:
        from tfdebug.adapters.registry import check_device_map

        check_device_map(args.device_map)  # a wrong name is refused before the window opens
    if args.download and args.model:
        from tfdebug.adapters.hf.hub import fetch_spec

        fetch_spec(args.model)  # the window then opens it from the cache
    connect = None
    if args.connect is not None:
        from tfdebug.core.errors import InputError

        if not args.token:
            raise InputError("--connect needs the --token tfdebug serve printed with it.")
        connect = (args.connect, args.token, args.server_key)
    return run_app(connect=connect, model=args.model, texts=given_texts(args), device=args.device, goto=args.goto,
                   generation=settings_from_args(args) if args.generate else None,
                   screenshot=args.screenshot, lang=args.lang, max_capture_mb=args.max_capture_mb,
                   dtype=args.dtype, device_map=args.device_map, chat=args.chat, fresh=args.fresh)
