"""The attitude observation every task starts from: the vehicle's state, last action, aux state.

Layout (all float64): body rates (3) [rad/s]; attitude as a quaternion (4, x y z w,
PyBullet order) or Euler roll, pitch, yaw (3) [rad]; body-frame velocity (3) [m/s];
ground-frame position (3) [m]; the previous normalised action (k); the vehicle's auxiliary
state (m). Values are clipped to the space's bounds, which are generous, so an observation
always lies in its space even on the step that ends an episode far outside the dome.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

ANGLE_REPRESENTATIONS = ("quaternion", "euler")


def check_angle_representation(angle_representation: object) -> str:
    """Return ``angle_representation`` if it is "quaternion" or "euler", else raise."""
    if angle_representation not in ANGLE_REPRESENTATIONS:
        raise ValueError(f"angle_representation must be one of {list(ANGLE_REPRESENTATIONS)}, "
                         f"got {angle_representation!r}")
    return str(angle_representation)


class AttitudeObserver:
    """Builds the attitude vector of one drone.

    Args:
        drone: the vehicle (a DroneClass).
        angle_representation: "quaternion" or "euler".
        action_space: the agent's normalised action Box (its bounds bound the action part).
        max_rate: bound on body rates [rad/s].
        max_speed: bound on body velocity [m/s].
        max_distance: bound on each position coordinate [m].
        aux_low, aux_high: (m,) bounds of the auxiliary state.
    """

    def __init__(self, drone, angle_representation: str, action_space: spaces.Box,
                 max_rate: float, max_speed: float, max_distance: float, aux_low, aux_high):
        self.drone = drone
        self.use_quaternion = check_angle_representation(angle_representation) == "quaternion"
        n_angles = 4 if self.use_quaternion else 3
        angle_bound = 1.0 if self.use_quaternion else np.pi
        low = np.concatenate([
            np.full(3, -max_rate), np.full(n_angles, -angle_bound), np.full(3, -max_speed),
            np.full(3, -max_distance), action_space.low, np.asarray(aux_low, dtype=float)])
        high = np.concatenate([
            np.full(3, max_rate), np.full(n_angles, angle_bound), np.full(3, max_speed),
            np.full(3, max_distance), action_space.high, np.asarray(aux_high, dtype=float)])
        self.space = spaces.Box(low, high, dtype=np.float64)
        self._low, self._high = low, high
        self._angles = slice(3, 3 + n_angles)
        self._rest = 3 + n_angles
        self._action = slice(self._rest + 6, self._rest + 6 + action_space.shape[0])
        self._aux = slice(self._action.stop, low.shape[0])

    @property
    def size(self) -> int:
        """Length of the attitude vector."""
        return self._low.shape[0]

    def observe(self, action: np.ndarray) -> np.ndarray:
        """Return a new attitude vector for the drone's current state and ``action``."""
        drone = self.drone
        state = drone.state
        out = np.empty(self._low.shape[0])
        out[0:3] = state[0]
        out[self._angles] = drone.quaternion if self.use_quaternion else state[1]
        out[self._rest:self._rest + 3] = state[2]
        out[self._rest + 3:self._rest + 6] = state[3]
        out[self._action] = action
        out[self._aux] = drone.aux_state
        return np.clip(out, self._low, self._high, out=out)
