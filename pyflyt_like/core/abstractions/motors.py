"""Propeller motors driven by PWM-style commands, vectorised over their links."""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul

import numpy as np
import pybullet

from pyflyt_like.common.validation import as_float_array
from pyflyt_like.physics.motor_lag import lag_gain, lag_step

from .rigid_links import all_rigid, link_geometry

NOISE_BLOCK = 256  # physics steps of motor noise drawn at once


class Motors:
    """``n`` motors, each a first-order-lagged throttle that produces thrust and yaw torque.

    Per physics period ``dt`` and command ``pwm`` in [-1, 1]:

    - ``throttle += (1 - exp(-dt/tau)) * (pwm - throttle)`` — the exact step response of a
      first-order lag, so the throttle reaches ``1 - 1/e`` of a step at ``t = tau``; ``tau``
      is ``tau`` while the command's magnitude exceeds the throttle's (spinning up) and
      ``tau_fall`` otherwise (:mod:`pyflyt_like.physics.motor_lag`);
    - ``throttle += throttle * noise_ratio * N(0, 1)`` (zero-mean);
    - ``rpm = throttle * max_rpm``;
    - thrust ``sign(rpm) * rpm**2 * thrust_coef`` [N] and torque
      ``sign(rpm) * rpm**2 * torque_coef`` [N m], both along ``thrust_unit`` in the link frame.
      The sign of ``torque_coef`` encodes the spin direction.

    Args:
        p: the aviary (a pybullet BulletClient).
        physics_period: seconds per physics step.
        np_random: the aviary's random generator.
        uav_id: pybullet body id of the drone.
        motor_ids: (n,) link ids of the motors.
        tau: (n,) lag time constants [s], >= 0 (0: the throttle follows at once): of the
            rise, and of the fall unless ``tau_fall`` is given.
        max_rpm: (n,) rotor speed at full throttle [RPM], > 0.
        thrust_coef: (n,) [N / RPM^2], >= 0.
        torque_coef: (n,) [N m / RPM^2], signed.
        thrust_unit: (n, 3) thrust directions in each link's frame (normalised here).
        noise_ratio: (n,) relative throttle noise, >= 0.
        tau_fall: (n,) fall time constants [s], >= 0; None: equal to ``tau``.
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator, uav_id: int,
                 motor_ids: Sequence[int], tau, max_rpm, thrust_coef, torque_coef, thrust_unit,
                 noise_ratio, tau_fall=None):
        self.client_id = p._client
        self.uav_id = int(uav_id)
        self.np_random = np_random
        self.motor_ids = [int(i) for i in motor_ids]
        n = len(self.motor_ids)
        if n == 0:
            raise ValueError("motor_ids must name at least one link")
        self.tau = as_float_array("tau", tau, (n,))
        self.tau_fall = (self.tau.copy() if tau_fall is None
                         else as_float_array("tau_fall", tau_fall, (n,)))
        self.max_rpm = as_float_array("max_rpm", max_rpm, (n,))
        self.thrust_coef = as_float_array("thrust_coef", thrust_coef, (n,))
        self.torque_coef = as_float_array("torque_coef", torque_coef, (n,))
        self.noise_ratio = as_float_array("noise_ratio", noise_ratio, (n,))
        unit = as_float_array("thrust_unit", thrust_unit, (n, 3))
        norms = np.linalg.norm(unit, axis=1)
        if np.any(self.tau < 0):
            raise ValueError(f"tau must be >= 0 s (0: no lag), got {self.tau.tolist()}")
        if np.any(self.tau_fall < 0):
            raise ValueError(f"tau_fall must be >= 0 s (0: no lag), got "
                             f"{self.tau_fall.tolist()}")
        if np.any(self.max_rpm <= 0):
            raise ValueError(f"max_rpm must be > 0, got {self.max_rpm.tolist()}")
        if np.any(self.thrust_coef < 0):
            raise ValueError(f"thrust_coef must be >= 0, got {self.thrust_coef.tolist()}")
        if np.any(self.noise_ratio < 0):
            raise ValueError(f"noise_ratio must be >= 0, got {self.noise_ratio.tolist()}")
        if np.any(norms < 1e-9):
            raise ValueError("thrust_unit rows must be non-zero vectors")
        self.thrust_unit = unit / norms[:, None]
        self._lag_gain_values = [lag_gain(physics_period, tau) for tau in self.tau.tolist()]
        self._fall_gain_values = [lag_gain(physics_period, tau)
                                  for tau in self.tau_fall.tolist()]
        self._noisy = bool(np.any(self.noise_ratio > 0))
        self._noise_block = np.zeros((0, n))
        self._noise_row = 0
        # Thrust and torque per signed throttle^2, side by side: one product gives both loads.
        self._load_per_throttle2 = np.hstack((
            self.thrust_unit * (self.thrust_coef * self.max_rpm**2)[:, None],
            self.thrust_unit * (self.torque_coef * self.max_rpm**2)[:, None],
        ))
        # Motors fixed rigidly to the base act on it through one force and one torque; the
        # (6, n) map from signed throttle^2 to that wrench saves two pybullet calls per motor.
        wrench_map = (_base_wrench_map(self.client_id, self.uav_id, self.motor_ids,
                                       self._load_per_throttle2)
                      if all_rigid(self.client_id, self.uav_id, self.motor_ids) else None)
        self._base_wrench_rows = None if wrench_map is None else wrench_map.tolist()
        # The same map by columns (one per motor) for base_wrench: a fixed-wing's single
        # motor then costs one short list product instead of six sums.
        self._base_wrench_columns = None if wrench_map is None else wrench_map.T.tolist()
        self._no_noise = [0.0] * n
        self.throttle = np.zeros(n)

    @property
    def rpm(self) -> np.ndarray:
        """(n,) signed rotor speeds [RPM]."""
        return self.throttle * self.max_rpm

    def _next_noise(self) -> np.ndarray:
        """One row of scaled noise; drawn in blocks, since one draw per step costs more."""
        if self._noise_row == self._noise_block.shape[0]:
            self._noise_block = (self.np_random.standard_normal((NOISE_BLOCK, self.throttle.size))
                                 * self.noise_ratio)
            self._noise_row = 0
        self._noise_row += 1
        return self._noise_block[self._noise_row - 1].tolist()

    def reset(self) -> None:
        """Spin the motors down to zero throttle."""
        self.throttle[:] = 0.0
        # Drop pre-drawn noise so that a reseeded generator replays the same episode.
        self._noise_block = np.zeros((0, self.throttle.size))
        self._noise_row = 0

    def get_states(self) -> np.ndarray:
        """Return a copy of the (n,) throttles."""
        return self.throttle.copy()

    def state_update(self, rotation_matrix: np.ndarray | None = None) -> None:
        """Motors need no body state: forces are applied in their link frames."""

    def physics_update(self, pwm: np.ndarray, rotation: np.ndarray | None = None) -> None:
        """Advance the throttles by one physics period under ``pwm`` (n,) and apply the loads.

        Args:
            pwm: (n,) commands in [-1, 1] (clipped).
            rotation: optional (n, 3, 3) rotations of each motor's thrust axis in its link
                frame, e.g. from :meth:`Gimbals.compute_rotation` (PyFlyt's argument).
        """
        if rotation is not None:
            self._rotated_update(pwm, rotation)
            return
        squares = self._advance(pwm)
        uav, client, frame = self.uav_id, self.client_id, pybullet.LINK_FRAME
        if self._base_wrench_rows is not None:
            fx, fy, fz, tx, ty, tz = [sum(map(mul, row, squares))
                                      for row in self._base_wrench_rows]
            pybullet.applyExternalForce(uav, -1, (fx, fy, fz), (0.0, 0.0, 0.0), frame,
                                        physicsClientId=client)
            pybullet.applyExternalTorque(uav, -1, (tx, ty, tz), frame, physicsClientId=client)
            return
        loads = (np.array(squares)[:, None] * self._load_per_throttle2).tolist()
        apply_force, apply_torque = pybullet.applyExternalForce, pybullet.applyExternalTorque
        for link, load in zip(self.motor_ids, loads):
            apply_force(uav, link, load[:3], (0.0, 0.0, 0.0), frame, physicsClientId=client)
            apply_torque(uav, link, load[3:], frame, physicsClientId=client)

    @property
    def on_base(self) -> bool:
        """Whether every motor is fixed rigidly to the base, so that :meth:`base_wrench`
        can give their loads as one force and one torque on it."""
        return self._base_wrench_rows is not None

    def base_wrench(self, pwm: np.ndarray | Sequence[float]) -> list[float]:
        """Advance the throttles as :meth:`physics_update` does and return the loads without
        applying them (a vehicle that sums them with others on its base applies them once).

        Args:
            pwm: (n,) commands in [-1, 1] (clipped).

        Returns:
            [fx, fy, fz, tx, ty, tz]: the force [N] at the base origin and the torque [N m]
            about it of all motors, base frame (PyBullet's ``LINK_FRAME`` of link -1).

        Raises:
            ValueError: a motor is not fixed rigidly to the base (see :attr:`on_base`).
        """
        if self._base_wrench_rows is None:
            raise ValueError("base_wrench needs every motor fixed rigidly to the base "
                             "(on_base is False); use physics_update")
        squares = self._advance(pwm)
        columns = self._base_wrench_columns
        # Summed motor by motor, in physics_update's order (the same numbers).
        wrench = [value * squares[0] for value in columns[0]]
        for column, square in zip(columns[1:], squares[1:]):
            wrench = [total + value * square for total, value in zip(wrench, column)]
        return wrench

    def _advance(self, pwm: np.ndarray | Sequence[float]) -> list[float]:
        """One physics period of the throttles under ``pwm``; returns the signed squares
        ``throttle |throttle|`` the loads scale with."""
        # A few motors per drone: Python floats beat numpy's per-call overhead here.
        throttle = self.throttle.tolist()  # the array stays the state: writes to it count
        noise = self._next_noise() if self._noisy else self._no_noise
        squares = []
        commands = pwm.tolist() if isinstance(pwm, np.ndarray) else list(pwm)
        rise, fall = self._lag_gain_values, self._fall_gain_values
        for i, command in enumerate(commands):
            command = -1.0 if command < -1.0 else (1.0 if command > 1.0 else command)
            value = lag_step(throttle[i], command, rise[i], fall[i])
            value += value * noise[i]
            throttle[i] = value
            squares.append(value * abs(value))
        self.throttle[:] = throttle
        return squares

    def _rotated_update(self, pwm: np.ndarray, rotation: np.ndarray) -> None:
        """The loads of :meth:`physics_update` with each thrust axis turned by ``rotation``."""
        rotation = np.asarray(rotation, dtype=float)
        if rotation.shape != (self.throttle.size, 3, 3):
            raise ValueError(f"rotation must have shape ({self.throttle.size}, 3, 3), got "
                             f"{rotation.shape}")
        command = np.clip(np.asarray(pwm, dtype=float), -1.0, 1.0).tolist()
        self.throttle[:] = [lag_step(value, target, rise, fall) for value, target, rise, fall
                            in zip(self.throttle.tolist(), command, self._lag_gain_values,
                                   self._fall_gain_values)]
        if self._noisy:
            self.throttle += self.throttle * np.asarray(self._next_noise())
        squares = self.throttle * np.abs(self.throttle)
        loads = (squares[:, None] * self._load_per_throttle2).reshape(-1, 2, 3)
        loads = np.einsum("nij,nkj->nki", rotation, loads).reshape(-1, 6)
        uav, client, frame = self.uav_id, self.client_id, pybullet.LINK_FRAME
        for link, load in zip(self.motor_ids, loads.tolist()):
            pybullet.applyExternalForce(uav, link, load[:3], (0.0, 0.0, 0.0), frame,
                                        physicsClientId=client)
            pybullet.applyExternalTorque(uav, link, load[3:], frame, physicsClientId=client)


def _base_wrench_map(client: int, uav: int, links: Sequence[int],
                     load_per_unit: np.ndarray) -> np.ndarray:
    """(6, n) map from per-link load scale to [force; torque] on the base, in base frame.

    ``load_per_unit`` is (n, 6): force and pure torque of each link, in the link frame, per
    unit scale.
    """
    offsets, rotations = link_geometry(client, uav, links)
    columns = []
    for offset, rotation, load in zip(offsets, rotations, load_per_unit):
        force, torque = rotation @ load[:3], rotation @ load[3:]
        columns.append(np.concatenate((force, np.cross(offset, force) + torque)))
    return np.array(columns).T
