"""The batched engine: many multirotor worlds in one compiled step (numba), cross-checked
against the PyBullet path. Importing it does not import pybullet. See docs/batch.md.
"""

from .kernel_cache import drop_stale_caches

drop_stale_caches()  # before any kernel is loaded from the cache

from .aviary import MODES, BatchedAviary  # noqa: E402
from .randomization import KEYS as RANDOMIZE_KEYS  # noqa: E402

__all__ = ["MODES", "RANDOMIZE_KEYS", "BatchedAviary"]
