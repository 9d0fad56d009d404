"""What an agent's action means for each vehicle family and flight mode.

Agents act in a normalised Box (each entry in [-1, 1], or [0, 1] where the physical
quantity is never negative, as gymnasium's checker recommends).
:class:`AffineActionMapping` turns that into the vehicle's setpoint in physical units. The
physical ranges per mode are the environment's definition of the task, documented in
docs/envs.md. (The batched Multirotor tasks scale their actions about the hover command
instead: :func:`~pyflyt_like.envs.multirotor_tasks.actions.hover_centred_scaling`.)
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from pyflyt_like.common.validation import as_float_array

RATE_LIMIT = math.pi  # rad/s, body-rate commands (PyFlyt's angular_rate_limit)
QUADX_THRUST_LIMIT = 0.8  # collective throttle ceiling in modes 0 and 1 (PyFlyt's)
QUADX_TILT_LIMIT = math.pi / 6  # rad, roll/pitch commands of angle modes
CLIMB_RATE_LIMIT = 2.0  # m/s, vertical-velocity commands
QUADX_SPEED_LIMIT = 3.0  # m/s, horizontal-velocity commands
FIXEDWING_ROLL_LIMIT = math.pi / 3  # rad, attitude-hold roll command
FIXEDWING_PITCH_LIMIT = math.pi / 6  # rad, attitude-hold pitch command
FIXEDWING_YAW_RATE_LIMIT = 1.0  # rad/s, attitude-hold yaw-rate command


class AffineActionMapping:
    """Affine map from a normalised action to a setpoint with ``low <= setpoint <= high``.

    Dimensions whose physical ``low`` is >= 0 take actions in [0, 1]; the others in [-1, 1].

    Args:
        low: (k,) lowest setpoint, physical units.
        high: (k,) highest setpoint, physical units; ``high > low``.
    """

    def __init__(self, low, high):
        self.low = np.asarray(low, dtype=np.float64)
        self.high = np.asarray(high, dtype=np.float64)
        if self.low.shape != self.high.shape or not np.all(self.high > self.low):
            raise ValueError(f"action limits need high > low per entry, got low={low}, "
                             f"high={high}")
        action_low = np.where(self.low >= 0.0, 0.0, -1.0)
        self.space = spaces.Box(action_low, np.ones_like(action_low), dtype=np.float64)
        self._scale = (self.high - self.low) / (1.0 - action_low)
        self._offset = self.low - action_low * self._scale

    @property
    def size(self) -> int:
        """Number of action entries."""
        return self.low.shape[0]

    def check(self, name: str, action: object) -> np.ndarray:
        """Return ``action`` as a finite float64 (k,) array, not yet clipped.

        Raises:
            TypeError: naming ``name`` when the action is not numeric (strings included:
                ``["0"] * k`` is refused rather than parsed).
            ValueError: naming ``name`` when the shape is not (k,) or an entry is NaN/inf.
        """
        return as_float_array(name, action, (self.size,))

    def to_setpoint(self, action: np.ndarray) -> np.ndarray:
        """Return the (k,) setpoint for a normalised (k,) action (clipped to the space)."""
        return self._offset + self._scale * np.clip(action, self.space.low, self.space.high)

    def to_action(self, setpoint) -> np.ndarray:
        """Return the normalised (k,) action that commands ``setpoint`` (clipped to the space).

        Scripted pilots use it to act in physical units, e.g. a mode-7 position target.
        """
        action = (np.asarray(setpoint, dtype=np.float64) - self._offset) / self._scale
        return np.clip(action, self.space.low, self.space.high)


def _mapping_for_mode(family: str, flight_mode: object,
                      limits: dict[int, tuple[tuple[float, ...], tuple[float, ...]]]
                      ) -> AffineActionMapping:
    """The mapping of ``limits[flight_mode]``; raise unless ``flight_mode`` is one of its
    keys as an int (a bool or float such as ``True`` or ``1.0`` would match a key)."""
    if isinstance(flight_mode, (bool, np.bool_)) or not isinstance(
            flight_mode, (int, np.integer)) or flight_mode not in limits:
        raise ValueError(f"flight_mode must be one of {sorted(limits)} (an int) for {family}, "
                         f"got {flight_mode!r}")
    return AffineActionMapping(*limits[int(flight_mode)])


def quadx_action_mapping(flight_mode: int,
                         flight_dome_size: float) -> AffineActionMapping:
    """Action meaning for a QuadX in ``flight_mode`` (-1..7); position limits follow the dome."""
    rate, tilt, yaw = RATE_LIMIT, QUADX_TILT_LIMIT, math.pi
    climb, speed, dome = CLIMB_RATE_LIMIT, QUADX_SPEED_LIMIT, float(flight_dome_size)
    limits = {
        -1: ((0.0,) * 4, (1.0,) * 4),  # motor commands
        0: ((-rate, -rate, -rate, 0.0), (rate, rate, rate, QUADX_THRUST_LIMIT)),
        1: ((-tilt, -tilt, -yaw, -climb), (tilt, tilt, yaw, climb)),
        2: ((-rate, -rate, -rate, 0.0), (rate, rate, rate, dome)),
        3: ((-tilt, -tilt, -yaw, 0.0), (tilt, tilt, yaw, dome)),
        4: ((-speed, -speed, -rate, 0.0), (speed, speed, rate, dome)),
        5: ((-speed, -speed, -rate, -climb), (speed, speed, rate, climb)),
        6: ((-speed, -speed, -rate, -climb), (speed, speed, rate, climb)),
        7: ((-dome, -dome, -yaw, 0.0), (dome, dome, yaw, dome)),
    }
    return _mapping_for_mode("QuadX", flight_mode, limits)


def fixedwing_action_mapping(flight_mode: int) -> AffineActionMapping:
    """Action meaning for a fixed-wing in ``flight_mode`` (-1, 0 or 1)."""
    limits = {
        -1: ((-1.0,) * 5 + (0.0,), (1.0,) * 6),  # surfaces, thrust
        0: ((-1.0, -1.0, -1.0, 0.0), (1.0, 1.0, 1.0, 1.0)),  # roll, pitch, yaw, thrust
        1: ((-FIXEDWING_ROLL_LIMIT, -FIXEDWING_PITCH_LIMIT, -FIXEDWING_YAW_RATE_LIMIT, 0.0),
            (FIXEDWING_ROLL_LIMIT, FIXEDWING_PITCH_LIMIT, FIXEDWING_YAW_RATE_LIMIT, 1.0)),
    }
    return _mapping_for_mode("Fixedwing", flight_mode, limits)


def rocket_action_mapping(flight_mode: int = 0) -> AffineActionMapping:
    """Rocket actuators: finlets x, y, yaw, ignition, throttle, gimbal 1, gimbal 2."""
    return _mapping_for_mode("Rocket", flight_mode,
                             {0: ((-1.0, -1.0, -1.0, 0.0, 0.0, -1.0, -1.0), (1.0,) * 7)})
