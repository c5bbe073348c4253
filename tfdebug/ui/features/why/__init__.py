"""Why this output: the Lens and Attribution views of a finished pass (View ▸ Why This Output, Ctrl+Shift+W)."""
