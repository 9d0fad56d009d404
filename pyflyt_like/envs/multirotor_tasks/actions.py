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
from typing import NamedTuple

import numpy as np

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
    after one dtype and one shape comparison (its finiteness is checked by the env's step,
    before anything changes). Anything else goes through the full
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


class HoverCentredScaling(NamedTuple):
    """The map of normalised actions (k,) in [-1, 1] to setpoints of the engine's flight
    mode, piecewise linear about the hover command (zero) out to the model's limits (+-1):
    the arrays :func:`~pyflyt_like.rules.multirotor_tasks.to_setpoint` takes.

    centre, below, above: (k,) the setpoint at zero and its spans down to -1 and up to +1.
    yaw_column: the heading setpoint's column (mode 1: 2), or -1.
    """

    centre: np.ndarray
    below: np.ndarray
    above: np.ndarray
    yaw_column: int

    @property
    def size(self) -> int:
        """k, the length of one action."""
        return len(self.centre)


def hover_centred_scaling(model: MultirotorModel, flight_mode: int,
                          gravity: float) -> HoverCentredScaling:
    """The :class:`HoverCentredScaling` of ``model`` in ``flight_mode`` (-1, 0 or 1; see
    the module docstring) under ``gravity`` [m/s^2] (for the hover point)."""
    flight_mode = check_flight_mode(flight_mode)
    n = model.n_rotors
    if flight_mode == -1:
        hover = model.hover_speed(gravity)
        return HoverCentredScaling(np.full(n, hover), np.full(n, hover - model.min_speed),
                                   np.full(n, model.max_speed - hover), -1)
    weight = model.mass * gravity
    thrust_range = (weight - n * model.kf * model.min_speed ** 2,
                    n * model.kf * model.max_speed ** 2 - weight)
    if flight_mode == 0:
        angular = np.asarray(model.rate_limits, float)
    else:
        tilt = float(model.position_pid["max_tilt"])
        angular = np.array((tilt, tilt, YAW_TURN))
    return HoverCentredScaling(np.array((0.0, 0.0, 0.0, weight)),
                               np.array((*angular, thrust_range[0])),
                               np.array((*angular, thrust_range[1])),
                               2 if flight_mode == 1 else -1)
