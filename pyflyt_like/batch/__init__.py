"""The batched engine: many multirotor worlds in one compiled step (numba), cross-checked
against the PyBullet path. Importing it does not import pybullet. See docs/batch.md.
"""

from .aviary import MODES, BatchedAviary
from .randomization import KEYS as RANDOMIZE_KEYS

__all__ = ["MODES", "RANDOMIZE_KEYS", "BatchedAviary"]
