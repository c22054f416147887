import os
import sys

# Before torch loads libgomp: idle OpenMP workers sleep instead of spinning. On a small machine
# shared with the orchestrator and environments, spinning workers steal the cores that the busy
# thread needs (measured: 2-thread decode ~10x slower under load with the default policy).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .cli import main  # noqa: E402

sys.exit(main())
