"""Whether a world's kinematic state is still finite, checked inside a task's fused step."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def world_finite(state, w):
    """True if every vehicle of world ``w`` has a finite position, attitude, velocity and
    body rate (the engine's divergence check, :meth:`BatchedAviary.step`, for one world)."""
    for d in range(state.pos.shape[1]):
        for a in range(3):
            if not (np.isfinite(state.pos[w, d, a]) and np.isfinite(state.vel[w, d, a])
                    and np.isfinite(state.ang_vel[w, d, a])):
                return False
        for a in range(4):
            if not np.isfinite(state.quat[w, d, a]):
                return False
    return True
