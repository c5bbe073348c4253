"""The controller panels talk to and the parts it owns (stepping, the shown stage, axes, tiles, loading,
breakpoints), messages, the capture budget setting, settings stored as JSON."""
