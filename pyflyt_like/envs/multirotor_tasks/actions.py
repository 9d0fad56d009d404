"""The multirotor tasks' action: a normalised vector in [-1, 1]^k scaled to an engine setpoint.

Zero is always the hover command; -1 and +1 reach the model's limits (from its YAML):

- ``flight_mode=-1``: k = n rotors, rotor speeds; -1 ``min_speed``, 0 the hover speed,
  +1 ``max_speed`` (piecewise linear, so zero hovers whatever the model's range).
- ``flight_mode=0``: body rates p, q, r [rad/s] scaled by the attitude loop's
  ``rate_limits``, and collective thrust: -1 the thrust at ``min_speed``, 0 the weight,
  +1 the thrust at ``max_speed`` [N].
- ``flight_mode=1``: roll and pitch scaled by ``position_pid.max_tilt`` [rad], the yaw
  setpoint as a turn from the current heading scaled by pi/4 [rad] (so zero holds the
  heading whatever it is), and collective thrust as in mode 0.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pyflyt_like.common.multirotor_model import MultirotorModel
from pyflyt_like.common.validation import as_float_array

FLIGHT_MODES = (-1, 0, 1)  # the batched engine's multirotor modes the tasks fly
YAW_TURN = math.pi / 4  # rad: the attitude-mode heading change at a yaw action of +-1
_TRUSTED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def check_flight_mode(flight_mode: object) -> int:
    """Return ``flight_mode`` as an int if it is one of :data:`FLIGHT_MODES`, else raise."""
    if isinstance(flight_mode, (bool, np.bool_)) or not isinstance(flight_mode,
                                                                  (int, np.integer)):
        raise TypeError(f"flight_mode must be an int, one of {list(FLIGHT_MODES)} (-1 rotor "
                        f"speeds, 0 rates + thrust, 1 attitude + thrust), got {flight_mode!r}")
    if flight_mode not in FLIGHT_MODES:
        raise ValueError(f"flight_mode must be one of {list(FLIGHT_MODES)} (-1 rotor speeds, "
                         f"0 rates + thrust, 1 attitude + thrust), got {flight_mode}")
    return int(flight_mode)


def action_size(flight_mode: int, n_rotors: int) -> int:
    """k, the length of one action: the rotor count in mode -1, else 4."""
    return n_rotors if flight_mode == -1 else 4


def check_actions(name: str, actions: object, shape: tuple[int, ...]) -> np.ndarray:
    """``actions`` as a float array of ``shape``, checked for type and shape.

    The fast path: a float32 or float64 ndarray of the right shape is returned as it is,
    after one dtype and one shape comparison (its finiteness is checked by
    :func:`clip_actions`, in the pass that clips it). Anything else goes through the full
    check and comes back as a finite float64 copy.

    Raises:
        TypeError: not numbers: strings (also numeric ones such as ``"0.5"``), bools,
            complex numbers, ragged nesting, objects, naming ``name``.
        ValueError: the wrong shape, or NaN or inf entries (full check only), naming ``name``.
    """
    if type(actions) is np.ndarray and actions.dtype in _TRUSTED_DTYPES and (
            actions.shape == shape):
        return actions
    return as_float_array(name, actions, shape)


class HoverCentredScaling:
    """Scales (W, k) normalised actions to (W, k) setpoints of the engine's ``flight_mode``,
    piecewise linearly about the hover command (zero) out to the model's limits (+-1).

    Args:
        model: the multirotor's parameters.
        flight_mode: -1, 0 or 1 (see the module docstring).
        gravity: [m/s^2], for the hover point.
    """

    def __init__(self, model: MultirotorModel, flight_mode: int, gravity: float):
        self.flight_mode = check_flight_mode(flight_mode)
        n = model.n_rotors
        if self.flight_mode == -1:
            hover = model.hover_speed(gravity)
            centre = np.full(n, hover)
            below, above = np.full(n, hover - model.min_speed), np.full(n, model.max_speed - hover)
        else:
            weight = model.mass * gravity
            thrust_range = (weight - n * model.kf * model.min_speed ** 2,
                            n * model.kf * model.max_speed ** 2 - weight)
            if self.flight_mode == 0:
                angular = np.asarray(model.rate_limits, float)
                centre = np.array((0.0, 0.0, 0.0, weight))
            else:
                tilt = float(model.position_pid["max_tilt"])
                angular = np.array((tilt, tilt, YAW_TURN))
                centre = np.array((0.0, 0.0, 0.0, weight))
            below = np.array((*angular, thrust_range[0]))
            above = np.array((*angular, thrust_range[1]))
        self.size = action_size(self.flight_mode, n)
        self._centre, self._below, self._above = centre, below, above
        self._yaw_column = 2 if self.flight_mode == 1 else -1

    def __call__(self, action: np.ndarray, yaw: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Write the setpoints of ``action`` ((W, k), already within [-1, 1]) into ``out``;
        ``yaw`` (W,) [rad] is each drone's current heading (used by mode 1)."""
        _map_actions(action, self._centre, self._below, self._above, yaw, self._yaw_column,
                     out)
        return out


@njit(cache=True, _nrt=False, error_model="numpy")
def _map_actions(action, centre, below, above, yaw, yaw_column, out):
    """out = centre + action * (below where action < 0, else above), plus the heading in
    ``yaw_column`` (-1: none)."""
    for w in range(action.shape[0]):
        for i in range(action.shape[1]):
            a = action[w, i]  # min/max, not a branch: signs are random across worlds
            out[w, i] = centre[i] + max(a, 0.0) * above[i] + min(a, 0.0) * below[i]
        if yaw_column >= 0:
            out[w, yaw_column] += yaw[w]


@njit(cache=True, _nrt=False, error_model="numpy")
def clip_actions(action: np.ndarray, out: np.ndarray) -> bool:
    """Write ``action`` (W, k) clipped to [-1, 1] into ``out``, unless some entry is NaN or
    infinite: then False, and ``out`` unchanged."""
    for w in range(action.shape[0]):
        for i in range(action.shape[1]):
            if not math.isfinite(action[w, i]):
                return False
    for w in range(action.shape[0]):
        for i in range(action.shape[1]):
            out[w, i] = min(max(action[w, i], -1.0), 1.0)
    return True
