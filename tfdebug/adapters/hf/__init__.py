"""The Hugging Face adapter: loading (folders, the hub cache), names and conventions, attention and layer taps, op-level capture, verification."""
