"""Bundled data (demo model, vocabularies, corpus, icons), installed as `tfdebug.resources`."""
