"""Arguments shared by several subcommands (model, sentences, device)."""

from __future__ import annotations

import argparse

DEFAULT_SRC = "I love you"
DEFAULT_TGT = "我 爱 你"


def add_model_arguments(parser: argparse.ArgumentParser, with_text: bool = True) -> None:
    parser.add_argument("--model", default=None,
                        help="demo (the bundled translator, default when present), random, or a model folder")
    if with_text:
        parser.add_argument("--src", default=DEFAULT_SRC, help="source sentence (English)")
        parser.add_argument("--tgt", default=DEFAULT_TGT, help="target prefix (Chinese, words split by spaces)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N, mps or auto")
    parser.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"))


def load_from_args(args: argparse.Namespace):
    """The LoadedModel the arguments name (heavy imports happen here, not at parse time)."""
    from tfdebug.models.loader import default_model_name, load_model

    return load_model(args.model or default_model_name(), device=args.device, dtype=args.dtype)
