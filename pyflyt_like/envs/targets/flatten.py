"""FlattenWaypointEnv: a waypoint task's Dict observation as one Box, for plain MLP policies."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

WAYPOINT_KEYS = ("attitude", "target_deltas")
PADDED_WAYPOINT_KEYS = ("attitude", "target_deltas", "target_mask")


def _waypoint_layout(space: spaces.Space) -> tuple[spaces.Box, spaces.Box]:
    """(attitude Box, Box of one target delta) of a waypoint env's space, else ValueError.

    Both layouts of :mod:`~pyflyt_like.envs.targets.deltas` are understood: a Sequence of
    1-D Boxes, or (``padded_target_deltas=True``) a 2-D Box with a ``target_mask``.
    """
    if isinstance(space, spaces.Dict) and isinstance(space.spaces.get("attitude"), spaces.Box):
        attitude, deltas = space["attitude"], space.get("target_deltas")
        keys = set(space.spaces)
        if len(attitude.shape) == 1:
            if (keys == set(WAYPOINT_KEYS) and isinstance(deltas, spaces.Sequence)
                    and isinstance(deltas.feature_space, spaces.Box)
                    and len(deltas.feature_space.shape) == 1):
                return attitude, deltas.feature_space
            if (keys == set(PADDED_WAYPOINT_KEYS) and isinstance(deltas, spaces.Box)
                    and len(deltas.shape) == 2):
                return attitude, spaces.Box(deltas.low[0], deltas.high[0], dtype=deltas.dtype)
    raise ValueError("FlattenWaypointEnv needs a waypoint env: a Dict observation space with "
                     "exactly the keys 'attitude' (1-D Box) and 'target_deltas' (Sequence of "
                     "1-D Boxes), or with padded_target_deltas=True 'attitude', "
                     f"'target_deltas' (2-D Box) and 'target_mask'; got {space}")


class FlattenWaypointEnv(gymnasium.ObservationWrapper, gymnasium.utils.RecordConstructorArgs):
    """Turn ``{"attitude", "target_deltas"}`` into ``[attitude, next k target deltas]``.

    The observation is a float64 Box of ``attitude_size + context_length * width`` entries
    (width 3, or 4 with yaw targets): the attitude vector, then the deltas of the next
    ``context_length`` targets, nearest in the sequence first; once fewer than
    ``context_length`` targets remain, the missing deltas are zeros.

    Args:
        env: a waypoint env whose observation space is a Dict with exactly the keys
            "attitude" (1-D Box) and "target_deltas" (a Sequence of 1-D Boxes), or the
            padded layout ("target_deltas" a 2-D Box, and "target_mask").
        context_length: number of upcoming targets in the observation (a positive int).
    """

    def __init__(self, env: gymnasium.Env, context_length: int = 2):
        if isinstance(context_length, (bool, np.bool_)) or not isinstance(
                context_length, (int, np.integer)):
            raise TypeError(f"context_length must be a positive int, got {context_length!r}")
        if context_length < 1:
            raise ValueError(f"context_length must be a positive int, got {context_length!r}")
        # Recorded so that gymnasium can rebuild the wrapped env from its spec.
        gymnasium.utils.RecordConstructorArgs.__init__(self, context_length=context_length)
        gymnasium.ObservationWrapper.__init__(self, env)
        attitude, delta = _waypoint_layout(env.observation_space)
        self.context_length = int(context_length)
        self._attitude_size = attitude.shape[0]
        # Padding zeros must lie in the space even if a delta bound excludes zero.
        delta_low = np.tile(np.minimum(delta.low, 0.0), self.context_length)
        delta_high = np.tile(np.maximum(delta.high, 0.0), self.context_length)
        self.observation_space = spaces.Box(
            np.concatenate([attitude.low, delta_low]).astype(np.float64),
            np.concatenate([attitude.high, delta_high]).astype(np.float64), dtype=np.float64)

    def observation(self, observation: dict) -> np.ndarray:
        """Return the new flat (attitude_size + context_length * width,) observation."""
        out = np.zeros(self.observation_space.shape[0])
        out[:self._attitude_size] = observation["attitude"]
        deltas = np.asarray(observation["target_deltas"], dtype=np.float64)
        if "target_mask" in observation:  # padded layout: only the valid rows
            deltas = deltas[np.asarray(observation["target_mask"], dtype=bool)]
        shown = deltas[:self.context_length].reshape(-1)
        start = self._attitude_size
        out[start:start + shown.shape[0]] = shown
        return out
