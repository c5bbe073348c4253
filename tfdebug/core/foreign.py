"""Failures inside other libraries (transformers, tokenizers, safetensors, numpy) as one typed sentence.

A model folder can make a library fail in ways its authors never meant to be seen: a
tokenizer's regex that makes the Rust engine panic (pyo3's PanicException derives from
BaseException, so `except Exception` misses it and a worker thread dies silently), a
config that makes a constructor divide by zero, an index that raises KeyError. Inside
`foreign_call(...)` any such failure becomes the caller's TfdebugError whose sentence ends
with the library's own first line, made terminal-safe and short.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from tfdebug.core.errors import TfdebugError
from tfdebug.core.safe_text import terminal_safe

REASON_CHARS = 200


def reason_of(exc: BaseException) -> str:
    """The first line of `exc`'s message (or its type's name), terminal-safe, at most REASON_CHARS long."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines and lines[0].strip() else type(exc).__name__
    return terminal_safe(text, REASON_CHARS)


INTERRUPTS = (KeyboardInterrupt, SystemExit, GeneratorExit)  # what a catch-all must let through


@contextmanager
def foreign_call(error: type[TfdebugError], template: str, *, id: str, **params) -> Iterator[None]:
    """Run the block; any failure but tfdebug's own and an interrupt becomes `error(template, reason=…)`.

    `template` names `{reason}`; the cause is dropped from the traceback (the sentence is the report).
    """
    try:
        yield
    except TfdebugError:
        raise
    except INTERRUPTS:
        raise
    except BaseException as exc:  # noqa: BLE001 - a Rust panic is a BaseException
        raise error(template, id=id, reason=reason_of(exc), **params) from None
