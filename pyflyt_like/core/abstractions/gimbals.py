"""Two-axis gimbals that rotate a thrust vector, vectorised over their mounts."""

from __future__ import annotations

import numpy as np

from pyflyt_like.common.validation import as_float_array


def rodrigues(axes: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) about unit ``axes`` (n, 3) by ``angles`` (n,) [rad].

    Rodrigues' formula: ``R = I + sin(a) K + (1 - cos(a)) K^2`` with ``K`` the cross-product
    matrix of the axis.
    """
    k = cross_matrices(axes)
    return _rotations(k, k @ k, angles)


def cross_matrices(axes: np.ndarray) -> np.ndarray:
    """(n, 3, 3) matrices K with ``K v = axis x v`` for each of the (n, 3) ``axes``."""
    x, y, z = axes[:, 0], axes[:, 1], axes[:, 2]
    zero = np.zeros_like(x)
    return np.stack((np.stack((zero, -z, y), -1), np.stack((z, zero, -x), -1),
                     np.stack((-y, x, zero), -1)), 1)


def _rotations(k: np.ndarray, k_squared: np.ndarray, angles: np.ndarray) -> np.ndarray:
    sin, cos = np.sin(angles)[:, None, None], np.cos(angles)[:, None, None]
    return np.eye(3) + sin * k + (1.0 - cos) * k_squared


class Gimbals:
    """``n`` two-axis gimbals with first-order-lagged angles and range limits.

    Each gimbal turns a vector first about ``gimbal_unit_1`` by angle 1, then about
    ``gimbal_unit_2`` by angle 2 (both axes in the mount's frame). Commands in [-1, 1] map to
    ``[-range, +range]``; the angles follow them with lag ``tau`` (exact discretisation).

    Args:
        p: the aviary (unused: gimbals apply no loads of their own).
        physics_period: seconds per physics step.
        np_random: the aviary's random generator (unused).
        gimbal_unit_1: (n, 3) first rotation axis of each gimbal, normalised here.
        gimbal_unit_2: (n, 3) second rotation axis, normalised here.
        gimbal_tau: (n,) lag time constants [s], > 0.
        gimbal_range_degrees: (n, 2) maximum angle about each axis [deg], in [0, 90].
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator,
                 gimbal_unit_1, gimbal_unit_2, gimbal_tau, gimbal_range_degrees):
        unit_1 = as_float_array("gimbal_unit_1", gimbal_unit_1, (None, 3))
        n = unit_1.shape[0]
        unit_2 = as_float_array("gimbal_unit_2", gimbal_unit_2, (n, 3))
        tau = as_float_array("gimbal_tau", gimbal_tau, (n,))
        span = as_float_array("gimbal_range_degrees", gimbal_range_degrees, (n, 2))
        for name, unit in (("gimbal_unit_1", unit_1), ("gimbal_unit_2", unit_2)):
            if np.any(np.linalg.norm(unit, axis=1) < 1e-9):
                raise ValueError(f"{name} rows must be non-zero vectors")
        if np.any(tau <= 0):
            raise ValueError(f"gimbal_tau must be > 0 s, got {tau.tolist()}")
        if np.any(span < 0) or np.any(span > 90):
            raise ValueError(f"gimbal_range_degrees must be within [0, 90], got {span.tolist()}")
        self.unit_1 = unit_1 / np.linalg.norm(unit_1, axis=1, keepdims=True)
        self.unit_2 = unit_2 / np.linalg.norm(unit_2, axis=1, keepdims=True)
        self.range = np.radians(span)
        self._lag_gain = (1.0 - np.exp(-physics_period / tau))[:, None]
        self.angles = np.zeros((n, 2))
        # The axes never move: their cross-product matrices (and squares) are built once.
        self._k1, self._k2 = cross_matrices(self.unit_1), cross_matrices(self.unit_2)
        self._k1_squared, self._k2_squared = self._k1 @ self._k1, self._k2 @ self._k2

    def reset(self) -> None:
        """Centre every gimbal."""
        self.angles[:] = 0.0

    def get_states(self) -> np.ndarray:
        """Return a copy of the (n, 2) gimbal angles [rad]."""
        return self.angles.copy()

    def state_update(self) -> None:
        """Gimbals read no body state."""

    def physics_update(self) -> None:
        """Gimbals apply no loads; :meth:`compute_rotation` advances them (PyFlyt's split)."""

    def compute_rotation(self, gimbal_command: np.ndarray) -> np.ndarray:
        """Advance the angles one physics period toward ``gimbal_command`` (n, 2) in [-1, 1];
        return the (n, 3, 3) rotations.

        The returned matrices rotate a vector given in the mount frame (e.g. a booster's
        thrust direction) to where the gimbal points it; pass them to ``Boosters`` or
        ``Motors.physics_update(..., rotation)``.
        """
        target = as_float_array("gimbal_command", gimbal_command, (None, 2))
        if target.shape != self.angles.shape:
            raise ValueError(f"gimbal_command must have shape {self.angles.shape}, got "
                             f"{target.shape}")
        target = np.clip(target, -1, 1)
        self.angles += self._lag_gain * (target * self.range - self.angles)
        return (_rotations(self._k2, self._k2_squared, self.angles[:, 1])
                @ _rotations(self._k1, self._k1_squared, self.angles[:, 0]))
