"""Dialogs opened by actions and tools: conditions, decoding, models, batch input, the capture budget."""
