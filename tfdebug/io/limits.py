"""Bounds on what a snapshot or export may contain, checked before anything else uses it.

A file is data from anyone: its names end up as zip members, terminal output and window
labels, its counts and sizes decide how much memory opening it takes. Each check here
returns a sentence (the problem) or None, so the header, the manifest and the writers
share one rule and one wording.
"""

from __future__ import annotations

from typing import Iterable

from tfdebug.core.phrases import Phrase
# Control characters and lone surrogates: one rule for manifests, labels and the terminal.
from tfdebug.core.safe_text import has_unsafe as has_control, terminal_safe as escape_controls  # noqa: F401

MAX_NAME_CHARS = 256
MAX_STAGES = 50_000
MAX_STRING_CHARS = 4096  # a stage's descriptive fields (formula, source line, site, role)
# A typed text may be as long as a model's context: ~4 characters a token, 2M-token contexts exist.
MAX_TEXT_CHARS = 8_000_000
MAX_TOKENS_PER_STREAM = 2_097_152
MAX_STREAMS = 16
MAX_NESTING = 32  # JSON containers inside the manifest (model_config is the deep part)
MAX_ITEMS = 8_000_000  # JSON values in a manifest, all levels together (a long context's tokens are most)
# JSON values in a manifest's model_config: real configs hold hundreds to tens of thousands (a 21,843-class
# id2label and its label2id are ~44,000); 4M of them cost ~30 s and 1 GB to open.
MAX_CONFIG_VALUES = 1_048_576
MAX_TENSOR_BYTES = 1 << 50  # 1 PiB: any shape claiming more is damage, not data
# What a name_problem is about, by the `what` its callers pass.
NAME_KINDS = {"stage name": Phrase("stage name", id="what.stage_name"),
              "tensor name": Phrase("tensor name", id="what.tensor_name"),
              "stage input name": Phrase("stage input name", id="what.stage_input_name")}
NAME_PUNCTUATION = frozenset("._-:[]")
STREAM_PUNCTUATION = frozenset("_-")


def name_problem(name: object, what: str = "stage name") -> str | None:
    """Why `name` cannot be a stage (tensor) name, or None.

    Names become zip members, file-system-like keys and labels: 1-256 letters, digits
    and . _ - : [ ], not starting with a dot, so no path, markup or escape fits in one.
    """
    what = NAME_KINDS[what]
    if not isinstance(name, str) or not name:
        return Phrase("a {what} is missing or not text", id="limits.name_missing", what=what)
    if len(name) > MAX_NAME_CHARS:
        return Phrase("a {what} is {n} characters long (at most {most})", id="limits.name_long", what=what,
                      n=f"{len(name):,}", most=MAX_NAME_CHARS)
    if name.startswith(".") or not all(ch.isalnum() or ch in NAME_PUNCTUATION for ch in name):
        return Phrase("the {what} {name} holds characters other than letters, digits and . _ - : [ ] "
                      "(or starts with a dot)", id="limits.name_characters", what=what, name=shown(name))
    return None


def stream_problem(stream: object) -> str | None:
    """Why `stream` cannot name a token stream or an input field ('src', 'prompt', ...), or None."""
    if (not isinstance(stream, str) or not stream or len(stream) > 64
            or not all(ch.isalnum() or ch in STREAM_PUNCTUATION for ch in stream)):
        return Phrase("the token stream name {name} is not a short name of letters, digits, _ and -",
                      id="limits.stream_name", name=shown(stream))
    return None


def shown(value: object, limit: int = 40) -> str:
    """`value` quoted for a message: control characters escaped, long text cut."""
    text = value if isinstance(value, str) else repr(value)
    text = text[:limit] + ("…" if len(text) > limit else "")
    return "'" + escape_controls(text) + "'"


def string_problem(text: object, what: str, limit: int = MAX_STRING_CHARS) -> str | None:
    """Why `text` cannot be a string field of a manifest (too long, control characters), or None."""
    if not isinstance(text, str):
        return Phrase("{what} is not text", id="limits.not_text", what=what)
    if len(text) > limit:
        return Phrase("{what} is {n} characters long (at most {most})", id="limits.text_long", what=what,
                      n=f"{len(text):,}", most=f"{limit:,}")
    if has_control(text):
        return Phrase("{what} {text} holds control characters or broken Unicode", id="limits.control", what=what, text=shown(text))
    return None


def tokens_problem(words: object, stream: str) -> str | None:
    """Why `words` cannot be the token list of `stream`, or None."""
    if not isinstance(words, list):
        return Phrase("the tokens of '{stream}' are not a list", id="limits.tokens_not_list", stream=stream)
    if len(words) > MAX_TOKENS_PER_STREAM:
        return Phrase("'{stream}' has {n} tokens (at most {most})", id="limits.too_many_tokens", stream=stream,
                      n=f"{len(words):,}", most=f"{MAX_TOKENS_PER_STREAM:,}")
    for i, word in enumerate(words):
        if not isinstance(word, str) or len(word) > MAX_NAME_CHARS or has_control(word):
            return string_problem(word, Phrase("token {i} of '{stream}'", id="what.token", i=i, stream=stream),
                                  MAX_NAME_CHARS)
    return None


def structure_problem(doc: object, long_texts: str | None = None, max_items: int = MAX_ITEMS) -> str | None:
    """Why a parsed JSON value is too deep, too big, or holds an unusable string anywhere, or None.

    Walks iteratively (a deep document cannot exhaust the stack) and stops at the
    first problem; dictionary keys count as strings. The string values of the top-level
    map `long_texts` (a pass's input texts: a long prompt) are left to the caller, which
    checks them against their own, larger limit. More than `max_items` values in all is a problem too.
    """
    pending: list[tuple[object, int]] = [(doc, 0)]
    items = 0
    while pending:
        value, depth = pending.pop()
        items += 1
        if items > max_items:
            return Phrase("it holds more than {most} values", id="limits.too_many_values", most=f"{max_items:,}")
        if depth == 0 and long_texts and isinstance(value, dict) and isinstance(value.get(long_texts), dict):
            texts = value[long_texts]  # at depth 0, `value` is `doc`
            value = {k: v for k, v in value.items() if k != long_texts}
            pending.extend((key, 2) for key in texts)  # its keys are still checked here
            items += len(texts)
        if isinstance(value, str):
            if len(value) > MAX_TEXT_CHARS or has_control(value):  # the sentence only when there is a problem
                return string_problem(value, Phrase("a text", id="what.text"), MAX_TEXT_CHARS)
        elif isinstance(value, (dict, list)):
            if depth >= MAX_NESTING:
                return Phrase("it nests more than {most} levels deep", id="limits.too_deep", most=MAX_NESTING)
            children: Iterable = value.items() if isinstance(value, dict) else value
            for child in children:
                if isinstance(value, dict):
                    key, child = child
                    pending.append((key, depth + 1))
                pending.append((child, depth + 1))
    return None


def shape_problem(shape: Iterable[int], itemsize: int, allow_empty: bool = False) -> str | None:
    """Why a tensor of `shape` cannot be a stage (no values, or absurdly large), or None."""
    dims = list(shape)
    # A zero dimension makes the byte count 0 and would hide an absurd one beside it.
    size = itemsize
    for d in dims:
        size *= max(d, 1)
        if size > MAX_TENSOR_BYTES:
            return Phrase("shape {shape} is too large to be real", id="limits.shape_huge", shape=tuple(dims))
    if 0 in dims and not allow_empty:
        return Phrase("shape {shape} holds no values", id="limits.shape_empty", shape=tuple(dims))
    return None
