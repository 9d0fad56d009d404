"""How the waypoint-family tasks show the targets ahead: a Sequence, or padded to a fixed shape.

The tasks with a course of targets (QuadX-Waypoints, QuadX-Pole-Waypoints,
Fixedwing-Waypoints, QuadX-Gates) observe the k targets not yet reached, each as a (w,) row
of body-frame deltas. Two layouts, chosen by the ``padded_target_deltas`` option:

- ``False`` (default, PyFlyt's): ``"target_deltas"`` is a stacked ``Sequence`` of (w,) Boxes,
  an array of shape (k, w) that shrinks as targets are reached. gymnasium's shared-memory
  ``AsyncVectorEnv`` cannot hold a space whose shape changes.
- ``True``: ``"target_deltas"`` is a Box (n, w), n the targets per episode: the k remaining
  targets first, in order, then n - k rows of zeros; ``"target_mask"`` is a
  ``MultiBinary(n)`` (int8) with 1 on the k valid rows. Every space has a fixed shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pyflyt_like.common.validation import check_bool


class TargetDeltas:
    """The target part of a waypoint-family observation, in one of the two layouts.

    Args:
        num_targets: n, targets per episode (the padded layout's row count).
        bounds: (w,) bound of each column of a delta row; zero must lie within.
        padded: the fixed-shape layout (see the module docstring) instead of the Sequence.
    """

    def __init__(self, num_targets: int, bounds: np.ndarray, padded: bool):
        self.num_targets = int(num_targets)
        self.padded = bool(padded)
        row = spaces.Box(-bounds, bounds, dtype=np.float64)
        self.row_space = row
        if self.padded:
            rows = np.tile(bounds, (self.num_targets, 1))
            self.spaces: dict[str, spaces.Space] = {
                "target_deltas": spaces.Box(-rows, rows, dtype=np.float64),
                "target_mask": spaces.MultiBinary(self.num_targets)}
        else:
            self.spaces = {"target_deltas": spaces.Sequence(row, stack=True)}

    def observe(self, deltas: np.ndarray) -> dict[str, np.ndarray]:
        """The observation entries for the (k, w) deltas of the k targets remaining."""
        if not self.padded:
            return {"target_deltas": deltas}
        remaining = deltas.shape[0]
        padded = np.zeros((self.num_targets, self.row_space.shape[0]))
        padded[:remaining] = deltas
        mask = np.zeros(self.num_targets, dtype=np.int8)
        mask[:remaining] = 1
        return {"target_deltas": padded, "target_mask": mask}


class TargetDeltasTask:
    """Mixin of the waypoint-family tasks (ahead of the vehicle-family base): takes the
    ``padded_target_deltas`` option and builds the target part of the Dict observation.

    Args:
        padded_target_deltas: fixed-shape target deltas with a validity mask instead of
            PyFlyt's Sequence (default False); see docs/envs.md.
    """

    def __init__(self, *, padded_target_deltas: bool = False, **options: Any):
        self.padded_target_deltas = check_bool("padded_target_deltas", padded_target_deltas)
        super().__init__(**options)

    def target_spaces(self, num_targets: int, bounds: np.ndarray) -> dict[str, spaces.Space]:
        """Set up ``self.target_deltas`` for a course of ``num_targets`` with row ``bounds``
        and return its observation spaces (to merge into the task's Dict)."""
        self.target_deltas = TargetDeltas(num_targets, bounds, self.padded_target_deltas)
        return self.target_deltas.spaces
