"""Backward: Debug ▸ Backward (Ctrl+Shift+B) turns a finished pass into its backward section, stepped in reverse."""
