"""`tfdebug bench`: capture overhead, step latency, memory, snapshot speed and CUDA syncs, side by side."""
