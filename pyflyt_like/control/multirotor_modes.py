"""The multirotor's flight modes, shared by the PyBullet ``Multirotor`` and the batched
engine: which modes it has, each mode's setpoint size, and the setpoint that holds the
current state when a mode is entered.

- -1 rotor speeds (n, model unit); 0 body rates [rad/s] + thrust [N]; 1 roll, pitch, yaw
  [rad] + thrust [N]; 2 thrust [N] + body torques [N m]; 7 x, y [m], yaw [rad], z [m].
"""

from __future__ import annotations

import numpy as np

from pyflyt_like.common.flight_modes import FlightMode

# plain ints, as every vehicle's ``modes``: they are listed in error messages
MULTIROTOR_MODES = tuple(int(mode) for mode in (
    FlightMode.ACTUATORS, FlightMode.RATES, FlightMode.ATTITUDE, FlightMode.THRUST_TORQUES,
    FlightMode.POSITION))
#: The modes whose hold setpoint keeps the current heading (the others need no yaw).
HEADING_MODES = (int(FlightMode.ATTITUDE), int(FlightMode.POSITION))


def setpoint_size(mode: int, n_rotors: int) -> int:
    """Setpoint length of multirotor ``mode``: the rotor count for -1, else 4."""
    return n_rotors if mode == FlightMode.ACTUATORS else 4


def hold_setpoints(mode: int, n_rotors: int, weight: float, position: np.ndarray,
                   yaw: np.ndarray | None) -> np.ndarray:
    """Setpoints (..., k) that hold the current state in ``mode``, for any leading axes.

    Args:
        mode: one of :data:`MULTIROTOR_MODES`.
        n_rotors: rotor count (the setpoint size of mode -1).
        weight: nominal weight m g [N], the thrust that balances gravity.
        position: (..., 3) positions [m].
        yaw: (...) headings [rad]; needed in :data:`HEADING_MODES` only (else ``None``).

    Returns:
        (..., k) float64: zero rotor speeds (-1); zero rates and the weight (0); level
        attitude at the current heading and the weight (1); the weight and zero torques (2);
        the current position and heading (7).
    """
    leading = np.shape(position)[:-1]
    setpoints = np.zeros((*leading, setpoint_size(mode, n_rotors)))
    if mode == FlightMode.POSITION:
        setpoints[..., 0], setpoints[..., 1] = position[..., 0], position[..., 1]
        setpoints[..., 2], setpoints[..., 3] = yaw, position[..., 2]
    elif mode == FlightMode.ATTITUDE:
        setpoints[..., 2], setpoints[..., 3] = yaw, weight
    elif mode == FlightMode.THRUST_TORQUES:
        setpoints[..., 0] = weight
    elif mode == FlightMode.RATES:
        setpoints[..., 3] = weight
    return setpoints
