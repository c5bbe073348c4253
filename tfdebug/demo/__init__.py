"""The demo translator's corpus (lexicon, phrases, sentence families) and the training of the bundled models."""
