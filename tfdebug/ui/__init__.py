"""The desktop GUI (PySide6 + pyqtgraph). Everything Qt lives in this package."""

from tfdebug.ui import _pyside_refcounts

_pyside_refcounts.apply()
