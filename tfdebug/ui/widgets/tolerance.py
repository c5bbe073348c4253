"""The tolerance a person types for a comparison or the divergence condition: atol and rtol, as numbers."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from tfdebug.core.edits import parse_number
from tfdebug.core.errors import TfdebugError


def parse_tolerance(atol: str, rtol: str) -> tuple[float, float]:
    """The atol and rtol a person typed, as numbers; a TfdebugError sentence for anything else."""
    a = parse_number(atol, QCoreApplication.translate("CompareDialog", "The atol value"))
    r = parse_number(rtol, QCoreApplication.translate("CompareDialog", "The rtol value"))
    if not (a >= 0 and r >= 0):
        raise TfdebugError(QCoreApplication.translate("CompareDialog", "atol and rtol must be zero or positive numbers."))
    return a, r
