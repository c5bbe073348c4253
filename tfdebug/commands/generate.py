"""`tfdebug generate`: generate token by token, printing each token as it comes; --out saves every step's stages."""

from __future__ import annotations

import argparse
import sys

from tfdebug.commands.common import add_decoding_arguments, add_model_arguments, given_texts, load_from_args, texts_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug generate`'s options to `parser`."""
    add_model_arguments(parser)
    add_decoding_arguments(parser)
    parser.add_argument("--no-cache", action="store_true",
                        help="rerun the whole sequence every step instead of reading the KV cache")
    parser.add_argument("--out", default=None, metavar="FILE.safetensors",
                        help="also record every step's stages into a snapshot (open it with `tfdebug open`)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")


def run(args: argparse.Namespace) -> int:
    """Generate token by token, printing each token, and save every step's stages with --out; returns the exit
    status."""
    import torch

    from tfdebug.sessions.generation import GenerationSession
    from tfdebug.commands.common import settings_from_args
    from tfdebug.commands.stages import warn_unknown
    from tfdebug.io.exports import export_pass
    from tfdebug.io.formats import format_for
    from tfdebug.io.recording import Recording

    settings = settings_from_args(args)
    fmt = format_for(args.out, scope="pass") if args.out else None  # a bad suffix is refused before loading
    adapter = load_from_args(args)
    texts = texts_from_args(args, adapter) if given_texts(args) else adapter.generation_texts()
    session = GenerationSession(adapter, texts, settings, use_cache=not args.no_cache)
    if not args.quiet:
        warn_unknown(session)
        print(f"tfdebug: {settings.describe()}", file=sys.stderr)
    shown: list[str] = [""]  # the text printed so far

    def on_choice(choice) -> None:
        if settings.stop_at_eos and session.is_eos(choice):  # <eos> ends the line, unprinted
            return
        # The tokenizer's decode of every id so far, printed by its new end (a partial character waits).
        text = session.decoded()
        if not text.endswith("\ufffd") and text.startswith(shown[0]):
            print(text[len(shown[0]):], end="", flush=True)
            shown[0] = text
        if not args.quiet and sys.stderr.isatty():
            sys.stderr.write(f"\r\033[2K  step {choice.step + 1}/{settings.max_new_tokens}  p={choice.probability:.2f}\r")

    session.on_choice = on_choice
    if args.out:
        captures, _ = session.capture_all()
    else:
        with torch.no_grad():
            session.run()
    text = session.decoded()
    print(text[len(shown[0]):] if text.startswith(shown[0]) else "\n" + text)
    if args.out:
        recording = Recording.from_session(session, captures)
        export_pass(recording, args.out, fmt=fmt.suffix)
        if not args.quiet:
            print(f"wrote {args.out}: {len(session.choices)} steps, {len(recording.captures)} stages, "
                  f"{recording.nbytes / 1e6:.2f} MB", file=sys.stderr)
    return 0
