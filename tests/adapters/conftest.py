"""Adapter tests drive the window too: reuse the GUI fixtures (temporary settings, a window factory)."""

from tests.ui.conftest import make_window, settings, temporary_settings  # noqa: F401
