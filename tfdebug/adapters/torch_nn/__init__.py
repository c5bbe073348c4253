"""The torch.nn route: any module that calls scaled_dot_product_attention, tapped by patching that call."""
