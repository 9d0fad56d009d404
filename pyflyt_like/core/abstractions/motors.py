"""Propeller motors driven by PWM-style commands, vectorised over their links."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pybullet

from ..utils.validation import as_float_array


class Motors:
    """``n`` motors, each a first-order-lagged throttle that produces thrust and yaw torque.

    Per physics period ``dt`` and command ``pwm`` in [-1, 1]:

    - ``throttle += (1 - exp(-dt/tau)) * (pwm - throttle)`` — the exact step response of a
      first-order lag, so the throttle reaches ``1 - 1/e`` of a step at ``t = tau``;
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
        tau: (n,) lag time constants [s], > 0.
        max_rpm: (n,) rotor speed at full throttle [RPM], > 0.
        thrust_coef: (n,) [N / RPM^2], >= 0.
        torque_coef: (n,) [N m / RPM^2], signed.
        thrust_unit: (n, 3) thrust directions in each link's frame (normalised here).
        noise_ratio: (n,) relative throttle noise, >= 0.
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator, uav_id: int,
                 motor_ids: Sequence[int], tau, max_rpm, thrust_coef, torque_coef, thrust_unit,
                 noise_ratio):
        self.client_id = p._client
        self.uav_id = int(uav_id)
        self.np_random = np_random
        self.motor_ids = [int(i) for i in motor_ids]
        n = len(self.motor_ids)
        if n == 0:
            raise ValueError("motor_ids must name at least one link")
        self.tau = as_float_array("tau", tau, (n,))
        self.max_rpm = as_float_array("max_rpm", max_rpm, (n,))
        self.thrust_coef = as_float_array("thrust_coef", thrust_coef, (n,))
        self.torque_coef = as_float_array("torque_coef", torque_coef, (n,))
        self.noise_ratio = as_float_array("noise_ratio", noise_ratio, (n,))
        unit = as_float_array("thrust_unit", thrust_unit, (n, 3))
        norms = np.linalg.norm(unit, axis=1)
        if np.any(self.tau <= 0):
            raise ValueError(f"tau must be > 0 s, got {self.tau.tolist()}")
        if np.any(self.max_rpm <= 0):
            raise ValueError(f"max_rpm must be > 0, got {self.max_rpm.tolist()}")
        if np.any(self.thrust_coef < 0):
            raise ValueError(f"thrust_coef must be >= 0, got {self.thrust_coef.tolist()}")
        if np.any(self.noise_ratio < 0):
            raise ValueError(f"noise_ratio must be >= 0, got {self.noise_ratio.tolist()}")
        if np.any(norms < 1e-9):
            raise ValueError("thrust_unit rows must be non-zero vectors")
        self.thrust_unit = unit / norms[:, None]
        self._lag_gain = 1.0 - np.exp(-physics_period / self.tau)
        self._noisy = bool(np.any(self.noise_ratio > 0))
        self.throttle = np.zeros(n)
        self.rpm = np.zeros(n)

    def reset(self) -> None:
        """Spin the motors down to zero throttle."""
        self.throttle[:] = 0.0
        self.rpm[:] = 0.0

    def get_states(self) -> np.ndarray:
        """Return a copy of the (n,) throttles."""
        return self.throttle.copy()

    def state_update(self, rotation_matrix: np.ndarray | None = None) -> None:
        """Motors need no body state: forces are applied in their link frames."""

    def physics_update(self, pwm: np.ndarray) -> None:
        """Advance the throttles by one physics period under ``pwm`` (n,) and apply the loads."""
        throttle = self.throttle
        throttle += self._lag_gain * (np.clip(pwm, -1.0, 1.0) - throttle)
        if self._noisy:
            throttle += throttle * self.noise_ratio * self.np_random.standard_normal(throttle.size)
        rpm = np.multiply(throttle, self.max_rpm, out=self.rpm)
        signed_square = rpm * np.abs(rpm)
        forces = ((signed_square * self.thrust_coef)[:, None] * self.thrust_unit).tolist()
        torques = ((signed_square * self.torque_coef)[:, None] * self.thrust_unit).tolist()
        apply_force, apply_torque = pybullet.applyExternalForce, pybullet.applyExternalTorque
        uav, client, frame = self.uav_id, self.client_id, pybullet.LINK_FRAME
        for link, force, torque in zip(self.motor_ids, forces, torques):
            apply_force(uav, link, force, (0.0, 0.0, 0.0), frame, physicsClientId=client)
            apply_torque(uav, link, torque, frame, physicsClientId=client)
