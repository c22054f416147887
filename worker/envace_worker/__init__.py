"""envace PyTorch worker."""
