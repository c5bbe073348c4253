"""How many rows one pass takes: a batch is sized before any model loads or any text is tokenized.

A pass captures every stage of every row; a debugger's batch compares a handful of texts, and every row
multiplies the capture, the reference check and the export. A file of 100,000 lines given as a batch is
refused from its line count, in one sentence, before the model loads (the CLI) or the tokenizer runs (the
window), instead of tokenizing and padding it all.
"""

from __future__ import annotations

from tfdebug.core.errors import InputError

#: rows one pass takes at most (the CLI's repeated --input or --input-file lines, the window's batch rows)
MAX_BATCH_ROWS = 1024


def check_batch_rows(rows: int) -> None:
    """InputError when a batch of `rows` rows is more than one pass takes."""
    if rows > MAX_BATCH_ROWS:
        raise InputError("The batch has {n} rows; one pass takes at most {most}. Split the texts into batches of "
                         "at most {most} rows.", id="batch.too_many_rows", n=f"{rows:,}", most=f"{MAX_BATCH_ROWS:,}")
