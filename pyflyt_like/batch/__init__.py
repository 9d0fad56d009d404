"""The batched engine: many multirotor or fixed-wing worlds in one compiled step (numba),
cross-checked against the PyBullet path. Importing it does not import pybullet. See docs/batch.md.
"""

from .kernel_cache import register_cache_locator

register_cache_locator()  # before any kernel below is decorated: their caches go to its folder

from .aviary import MAX_STEPS_PER_CALL, MODES, BatchedAviary  # noqa: E402
from .randomization import KEYS as RANDOMIZE_KEYS  # noqa: E402
from .user_stages import UserStage  # noqa: E402

__all__ = ["MAX_STEPS_PER_CALL", "MODES", "RANDOMIZE_KEYS", "BatchedAviary", "UserStage"]
