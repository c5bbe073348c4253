"""Reference: this input on this model in another dtype or on another device, for the divergence condition and Compare."""
