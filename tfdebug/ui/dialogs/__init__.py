"""Dialogs opened by actions and tools: compare, edit tensor, export, the playground, the PE curves."""
