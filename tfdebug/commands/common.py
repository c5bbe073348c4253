"""Arguments shared by several subcommands (model, input texts, device)."""

from __future__ import annotations

import argparse

from tfdebug.core.batches import check_batch_rows
from tfdebug.core.errors import InputError
from tfdebug.core.files import read_text

MAX_INPUT_FILE = 16 * 2**20  # bytes of texts --input-file reads (a batch far past any model's memory)


def model_help(default: str = "") -> str:
    """--model's help: every model tfdebug bundles, by name, then the other kinds of spec (`default`: what
    the command opens when none is given, said at the end)."""
    from tfdebug.adapters.specs import ENTRIES  # no torch: the names and their sentences only

    bundled = "; ".join(f"{e.spec} ({e.help})" for e in ENTRIES if e.listed)
    return (f"a bundled model: {bundled}; or a model folder, hf:FOLDER, hf:ORG/NAME[@REVISION] from the Hugging "
            f"Face cache (a hub id is ORG/NAME, e.g. hf:openai-community/gpt2), or hf:FILE.gguf"
            + (f" (default: {default})" if default else ""))


def add_model_arguments(parser: argparse.ArgumentParser, with_text: bool = True) -> None:
    """Add the model options (--model, --device and, with `with_text`, the input texts) to `parser`."""
    parser.add_argument("--model", default=None, help=model_help("demo when present, else random"))
    if with_text:
        parser.add_argument("--input", action="append", default=[], metavar="KEY=TEXT",
                            help="a text the model takes, by its input key (repeatable), e.g. src='I love you' "
                                 "or prompt='Once upon a time'; the model's first preset fills the rest. The same key "
                                 "again makes a batch (stages, capture), padded by the model's tokenizer; an "
                                 "encoder takes a sentence pair as text=… text_pair=…")
        parser.add_argument("--input-file", action="append", default=[], metavar="KEY=FILE",
                            help="texts for one input from a UTF-8 text file, one per line (blank lines skipped): "
                                 "each line a row of the batch, as --input KEY=LINE repeated")
        parser.add_argument("--src", default=None, help="the translator's source sentence (same as --input src=TEXT)")
        parser.add_argument("--tgt", default=None,
                            help="the translator's target prefix (same as --input tgt=TEXT)")
        parser.add_argument("--image", default=None, metavar="FILE",
                            help="a PNG or JPEG file for an image model, e.g. --model tiny-vit (same as --input "
                                 "image=FILE); the model's own image processor prepares it")
        parser.add_argument("--audio", default=None, metavar="FILE",
                            help="a WAV file (FLAC with the soundfile package) for a speech model, e.g. --model "
                                 "tiny-whisper (same as --input audio=FILE); the model's own feature extractor "
                                 "prepares it")
        parser.add_argument("--chat", action="store_true",
                            help="send the text as a user's chat turn: the tokenizer's chat template with the "
                                 "assistant's generation prompt (models whose tokenizer has one)")
    parser.add_argument("--device", default="auto",
                        help="cpu, cuda, cuda:N, mps or auto (default auto: the first GPU when there is one, else cpu)")
    add_placement_arguments(parser)


def add_placement_arguments(parser: argparse.ArgumentParser, dtype_default: str | None = "float32") -> None:
    """--dtype, --device-map and --download: how a model is loaded (every command that loads one).
    `dtype_default` None (the window): the precision chosen there last time."""
    parser.add_argument("--dtype", default=dtype_default, choices=("float32", "bfloat16", "float16"),
                        help="the precision the model's weights and stages are in (default "
                             + (dtype_default or "the one chosen in the window last time, else bfloat16 on a GPU that "
                                                "supports it, else float32") + ")")
    parser.add_argument("--device-map", default=None, metavar="MAP",
                        help="auto, balanced, cpu or cuda:N: let accelerate place a Hugging Face model (over "
                             "several GPUs, or part on the CPU) instead of --device")
    parser.add_argument("--download", action="store_true",
                        help="fetch an hf:ORG/NAME model missing from the Hugging Face cache (default: the cache "
                             "only, no network)")


def check_model_argument(args: argparse.Namespace) -> None:
    """Refuse a --model that cannot load (unknown, a missing or incomplete folder, a hub id not cached)
    from the file system alone, before torch and transformers are imported: a typo is answered at once."""
    model = getattr(args, "model", None)
    if model and getattr(args, "connect", None) is None:  # with --connect the model runs elsewhere
        from tfdebug.adapters.specs import check_spec

        check_spec(model, download=getattr(args, "download", False))


def check_input_arguments(args: argparse.Namespace) -> None:
    """Refuse a malformed --input or --input-file (not KEY=TEXT, an empty file, uneven batch rows) before the
    model loads: a typo is answered at once, not after seconds of loading."""
    if hasattr(args, "input") or hasattr(args, "input_file"):
        given_rows(args)


def load_from_args(args: argparse.Namespace):
    """The ModelAdapter the arguments name (heavy imports happen here, not at parse time)."""
    from tfdebug.adapters.registry import default_model_name, load_adapter

    adapter = load_adapter(args.model or default_model_name(), device=args.device, dtype=args.dtype,
                           device_map=args.device_map, download=args.download)
    if getattr(args, "chat", False):
        if not adapter.can_chat():
            raise InputError("--chat needs a model whose tokenizer has a chat template; {name} has none.",
                             id="cli.no_chat_template", name=adapter.name)
        adapter.chat = True
    return adapter


def texts_from_args(args: argparse.Namespace, adapter) -> dict[str, str]:
    """The input texts: the adapter's first preset, or the texts given by --input KEY=TEXT, --src and --tgt.

    When any text is given, the preset fills only the required inputs not given (a target prefix alone
    runs on the preset's source sentence); an optional one not given stays empty (a typed source
    sentence does not inherit the preset's target prefix).
    """
    given = given_texts(args)
    if not given:
        return adapter.default_texts()
    return {**_preset_fills(adapter), **given}


def _preset_fills(adapter) -> dict[str, str]:
    """What the preset gives an input not named on the command line: its text for a required input, else ""."""
    preset = adapter.default_texts()
    return {f.key: preset.get(f.key, "") if f.required else "" for f in adapter.inputs}


def given_texts(args: argparse.Namespace) -> dict[str, str]:
    """The texts named on the command line (--input KEY=TEXT, --src, --tgt, --image, --audio), by input key; a key given more
    than once (a batch) is refused here: only `tfdebug stages` and `capture` take batches (`session_inputs`)."""
    rows = given_rows(args)
    if len(rows) > 1:
        raise InputError("Several texts for one input make a batch, which tfdebug stages and tfdebug capture "
                         "take; this command takes one text per input.", id="cli.no_batch")
    return rows[0]


def given_rows(args: argparse.Namespace) -> list[dict[str, str]]:
    """The texts named on the command line, one dict per batch row: a key given n times (--input text=A
    --input text=B) makes n rows; a key given once is in every row."""
    given: dict[str, list[str]] = {}
    for item in getattr(args, "input", None) or []:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--input takes KEY=TEXT (e.g. src='I love you'), not '{item}'.")
        given.setdefault(key.strip(), []).append(text)
    for item in getattr(args, "input_file", None) or []:
        key, sep, path = item.partition("=")
        if not sep or not key.strip():
            raise InputError("--input-file takes KEY=FILE (e.g. text=sentences.txt), not {item}.",
                             id="cli.input_file_form", item=repr(item)[:80])
        lines = [line.strip() for line in read_text(path, MAX_INPUT_FILE, InputError).splitlines() if line.strip()]
        if not lines:
            raise InputError("{path} holds no text: write one text per line.", id="cli.input_file_empty", path=path)
        given.setdefault(key.strip(), []).extend(lines)
    for key in ("src", "tgt", "image", "audio"):
        if getattr(args, key, None) is not None:
            given[key] = [getattr(args, key)]
    n = max((len(v) for v in given.values()), default=1)
    check_batch_rows(n)
    if any(1 < len(v) < n for v in given.values()):
        raise InputError("Every input given more than once must be given the same number of times (one text "
                         "per row of the batch).", id="cli.batch_rows")
    return [{k: v[i] if len(v) > 1 else v[0] for k, v in given.items()} for i in range(n)]


def session_inputs(args: argparse.Namespace, adapter, rows: list[dict[str, str]] | None = None) -> dict:
    """DebugSession's input arguments: `texts` (texts_from_args), or for a batch (an input given several
    times) `prepared`, the texts padded into one batch by the model's tokenizer. `rows`: `given_rows(args)`
    when the caller read them already (before loading the model, so a batch too large is refused first)."""
    rows = given_rows(args) if rows is None else rows
    if len(rows) == 1:
        return {"texts": texts_from_args(args, adapter)}
    blank = _preset_fills(adapter)
    return {"prepared": adapter.prepare_batch([{**blank, **row} for row in rows])}


def add_table_format_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """--json or --csv (one of them): a command that prints a table prints `what` in that format instead."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", action="store_true", help=f"print {what} as JSON")
    group.add_argument("--csv", action="store_true", help=f"print {what} as CSV, one row each")


def token_words(adapter):
    """A function giving a token id's text in `adapter`'s vocabulary ("#ID" past its end, "" for None)."""
    vocabulary = adapter.vocabulary() or []

    def word(i: int | None) -> str:
        if i is None:
            return ""
        return vocabulary[i] if i < len(vocabulary) else f"#{i}"
    return word


def add_decoding_arguments(parser: argparse.ArgumentParser) -> None:
    """The decoding settings of a generation (tfdebug generate, tfdebug gui --generate)."""
    parser.add_argument("--max-new-tokens", type=int, default=20, metavar="N",
                        help="generate at most N tokens (default 20)")
    parser.add_argument("--sample", action="store_true",
                        help="sample the next token (with --temperature, --top-k, --top-p, --seed); default greedy")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (default 1.0)")
    parser.add_argument("--top-k", type=int, default=0, help="sample among the k likeliest tokens (0: all)")
    parser.add_argument("--top-p", type=float, default=1.0,
                        help="sample among the fewest tokens whose probabilities reach p (1.0: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sampling (the same seed, the same tokens)")
    parser.add_argument("--no-eos-stop", action="store_true", help="keep generating after <eos>")


def settings_from_args(args: argparse.Namespace):
    """The DecodingSettings the decoding arguments give (InputError for impossible values)."""
    from tfdebug.models.sampling import DecodingSettings

    return DecodingSettings(max_new_tokens=args.max_new_tokens, sample=args.sample, temperature=args.temperature,
                            top_k=args.top_k, top_p=args.top_p, seed=args.seed, stop_at_eos=not args.no_eos_stop)


def add_budget_argument(parser: argparse.ArgumentParser, with_keep: bool = True) -> None:
    """--max-capture-mb, and with `with_keep` the policy of what it keeps (--keep, --focus, --pin)."""
    parser.add_argument("--max-capture-mb", type=float, default=None, metavar="MB",
                        help="keep at most this many MB of stage tensors; stages beyond it are left out "
                             "(the plan says which before the pass runs); `capture` defaults to half the free "
                             "memory, within 40%% of RAM for the whole process")
    if not with_keep:
        return
    parser.add_argument("--keep", default="near", choices=("near", "first"),
                        help="under --max-capture-mb, which stages stay: near (default) the ones nearest --focus "
                             "(else the last ones run), first the ones that run first")
    parser.add_argument("--focus", default=None, metavar="STAGE",
                        help="under --max-capture-mb, keep the stages nearest this one (e.g. dec.7.self_attn.probs)")
    parser.add_argument("--pin", action="append", default=[], metavar="KIND",
                        help="under --max-capture-mb, keep every stage of this kind first, in every layer "
                             "(repeatable, e.g. --pin softmax)")


def budget_from_args(args: argparse.Namespace) -> int | None:
    """The capture budget in bytes (None: no budget); a negative one is refused."""
    from tfdebug.commands.arguments import finite_number
    from tfdebug.core.budget import megabytes

    # nan, inf and 1e400 (which float() reads as inf) are refused, not turned into "no budget".
    return megabytes(finite_number(args.max_capture_mb, "--max-capture-mb", unit=" of MB"))


def keep_from_args(args: argparse.Namespace, pinned: tuple[str, ...] = ()):
    """The KeepPolicy of --keep, --focus and --pin (an unknown kind is refused with the kinds there are);
    `pinned` are the kinds kept first when --pin names none."""
    from tfdebug.core.budget import KeepPolicy
    from tfdebug.core.stages import KINDS

    unknown = [k for k in args.pin if k not in KINDS]
    if unknown:
        raise InputError(f"--pin takes a stage kind ({', '.join(KINDS)}), not '{unknown[0]}'.")
    return KeepPolicy(args.keep, args.focus, tuple(args.pin) or pinned)


def add_snapshot_argument(parser: argparse.ArgumentParser) -> None:
    """Add --snapshot: read a captured pass instead of running one (`why_from_args`)."""
    parser.add_argument("--snapshot", default=None, metavar="FILE",
                        help="read the pass a snapshot holds (tfdebug capture --out) instead of running one; the "
                             "model it names is loaded to read it out, or the one --model names")


def why_from_args(args: argparse.Namespace):
    """(adapter, Why) of the pass the arguments name: a snapshot's (--snapshot, read out with the model it names or
    --model's), else one forward of --model on the typed texts."""
    from tfdebug.sessions.why import finished_pass, recorded_why

    if getattr(args, "snapshot", None):
        from tfdebug.io.snapshot import open_snapshot

        recording = open_snapshot(args.snapshot)
        why = recorded_why(recording, load_from_args(args) if args.model else None)
        return why.adapter, why
    adapter = load_from_args(args)
    return adapter, finished_pass(adapter, **session_inputs(args, adapter))

