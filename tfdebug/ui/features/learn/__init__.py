"""Learn: the Learn menu's tools (Explain, the attention playground, the positional-encoding curves)."""
