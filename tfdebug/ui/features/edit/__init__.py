"""Edit: Debug ▸ Edit Tensor… changes a tensor of the stage on screen; Undo takes the last edit back."""
