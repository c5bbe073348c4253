"""Export: File ▸ Export… (Ctrl+E) writes the pass (snapshot, NumPy, PyTorch) or the heatmap (CSV, PNG, SVG)."""
