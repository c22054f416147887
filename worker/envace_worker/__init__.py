"""envace PyTorch worker."""

import os

# MKL's default dynamic threading picks each GEMM's thread count at run time from the machine's
# load, which changes the summation order: two trainings of the same data on one machine then part
# in the last bits (seen on an AVX-512 Xeon under CI load) and every figure after them drifts.
# Fixed thread counts make a run repeatable; set before torch loads MKL and OpenMP, and only where
# the user has not chosen otherwise.
os.environ.setdefault("MKL_DYNAMIC", "FALSE")
os.environ.setdefault("OMP_DYNAMIC", "FALSE")
# Fixed threads are only one of Intel's conditions for run-to-run reproducible results; the other is
# a conditional-numerical-reproducibility branch (MKL_CBWR), which MKL's default leaves OFF, and
# under OFF Intel promises no repeatability. With fixed threads and CNR OFF two trainings still
# parted in the last bits once in two CI runs. AUTO fixes the fastest branch this CPU has (on the
# AVX-512 Xeon here: the same weights, to the bit, as OFF). A user's MKL_CBWR="" turns it off.
# The price of both: where other programs keep the cores busy, a fixed thread count waits for the
# descheduled thread (bench_blas_threading --load); `serve --threads 1` is then the fast choice.
os.environ.setdefault("MKL_CBWR", "AUTO")
