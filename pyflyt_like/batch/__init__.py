"""The batched engine: many multirotor or fixed-wing worlds in one compiled step (numba),
cross-checked against the PyBullet path. Importing it does not import pybullet. See docs/batch.md.
"""

import pyflyt_like.compiled  # noqa: F401  (first: it registers the kernels' cache folder)

from .aviary import MAX_STEPS_PER_CALL, MODES, BatchedAviary
from .randomization import KEYS as RANDOMIZE_KEYS
from .user_stages import UserStage

__all__ = ["MAX_STEPS_PER_CALL", "MODES", "RANDOMIZE_KEYS", "BatchedAviary", "UserStage"]
