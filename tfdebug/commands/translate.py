"""`tfdebug translate TEXT`: print the model's greedy translation of an English sentence."""

from __future__ import annotations

import argparse

from tfdebug.commands.common import add_model_arguments, load_from_args
from tfdebug.commands.stages import print_unknown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug translate`'s options to `parser`."""
    parser.add_argument("text", nargs="+", metavar="TEXT",
                        help="the English sentence (quoted, or as separate words)")
    add_model_arguments(parser, with_text=False)
    parser.add_argument("--max-len", type=int, default=None,
                        help="stop after this many target tokens (default: the model's limit)")


def run(args: argparse.Namespace) -> int:
    """Print the reference translator's greedy translation of the sentence; returns the exit status."""
    from tfdebug.adapters.reference import ReferenceAdapter
    from tfdebug.core.errors import ConfigError
    from tfdebug.models.translate import translate

    adapter = load_from_args(args)
    if not isinstance(adapter, ReferenceAdapter):
        raise ConfigError(f"`tfdebug translate` runs the reference translator; {adapter.name} is not one "
                          "(use `tfdebug generate` for other models).")
    result = translate(adapter.loaded, " ".join(args.text), max_len=args.max_len)
    print_unknown(result.unknown, adapter.loaded)
    print(result.text)
    return 0
