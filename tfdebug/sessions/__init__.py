"""Passes over a model: a live capture (DebugSession), generation token by token, and the reference check; each a pass source the window and CLI talk to."""
