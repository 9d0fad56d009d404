"""The observation rows of the multirotor tasks, assembled in one compiled pass.

Per world: ``[task features, body-to-world rotation (9, row-major), world velocity (3),
body rates (3), last action (k)]``, plus noise, clipped to the observation space's bounds
and stored as float32. A numpy version costs a temporary per block and per operation,
which at 16 384 worlds was a tenth of an env step.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .threads import over_worlds


def write_observations(features: np.ndarray, rot: np.ndarray, vel: np.ndarray,
                       ang_vel: np.ndarray, last_action: np.ndarray, noise: np.ndarray,
                       low: np.ndarray, high: np.ndarray, mask: np.ndarray,
                       observation: np.ndarray) -> None:
    """Write the observation rows of the worlds in ``mask`` (W,) bool.

    Args:
        features: (W, f) task features; rot: (W, 3, 3); vel, ang_vel: (W, 3);
            last_action: (W, k).
        noise: (W, f + 15 + k) added before clipping, or (1, f + 15 + k) zeros for none.
        low, high: (f + 15 + k,) the observation space's bounds.
        observation: (W, f + 15 + k) float32, written.
    """
    over_worlds(_rows, _blocks_of_rows, len(features), features, rot, vel, ang_vel,
                last_action, noise, low, high, mask, observation)


@njit(cache=True, parallel=True, error_model="numpy")
def _blocks_of_rows(blocks, features, rot, vel, ang_vel, last_action, noise, low, high, mask,
                    observation):
    n = features.shape[0]
    for block in prange(blocks):
        _rows(block * n // blocks, (block + 1) * n // blocks, features, rot, vel, ang_vel,
              last_action, noise, low, high, mask, observation)


@njit(cache=True, error_model="numpy")
def _rows(first, last, features, rot, vel, ang_vel, last_action, noise, low, high, mask,
          observation):
    n_features, n_actions = features.shape[1], last_action.shape[1]
    per_world = noise.shape[0] > 1
    for w in range(first, last):
        if not mask[w]:
            continue
        e = noise[w] if per_world else noise[0]
        c = 0
        for i in range(n_features):
            observation[w, c] = min(max(features[w, i] + e[c], low[c]), high[c])
            c += 1
        for i in range(3):
            for j in range(3):
                observation[w, c] = min(max(rot[w, i, j] + e[c], low[c]), high[c])
                c += 1
        for i in range(3):
            observation[w, c] = min(max(vel[w, i] + e[c], low[c]), high[c])
            c += 1
        for i in range(3):
            observation[w, c] = min(max(ang_vel[w, i] + e[c], low[c]), high[c])
            c += 1
        for i in range(n_actions):
            observation[w, c] = min(max(last_action[w, i] + e[c], low[c]), high[c])
            c += 1
