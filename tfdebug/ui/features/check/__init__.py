"""Check: Debug ▸ Check Against the Model chooses when a finished pass is compared with the unmodified model."""
