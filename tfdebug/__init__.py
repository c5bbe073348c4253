"""tfdebug: a step-through debugger for Transformer forward passes."""

__version__ = "0.1.0"
