"""The window's state as evented models: plain Python objects whose fields emit typed events (no Qt)."""
