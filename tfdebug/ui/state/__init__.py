"""The controller panels talk to, and its Qt-free helpers: breakpoints, generation, loading, messages, the capture budget setting."""
