"""envace PyTorch worker."""

import os

# MKL's default dynamic threading picks each GEMM's thread count at run time from the machine's
# load, which changes the summation order: two trainings of the same data on one machine then part
# in the last bits (seen on an AVX-512 Xeon under CI load) and every figure after them drifts.
# Fixed thread counts make a run repeatable; set before torch loads MKL and OpenMP, and only where
# the user has not chosen otherwise.
os.environ.setdefault("MKL_DYNAMIC", "FALSE")
os.environ.setdefault("OMP_DYNAMIC", "FALSE")
