"""The window's language: translators, translated texts of the Qt-free layers, the catalogue tool."""
