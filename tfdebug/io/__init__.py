"""Files: the snapshot format (safetensors and a JSON manifest), its validation and bounded readers, atomic writes, and the one registry of export formats."""
