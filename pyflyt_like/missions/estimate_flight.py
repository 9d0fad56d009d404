"""Flying a vehicle on its EKF estimate along a figure-eight in the PyBullet ``Aviary``, to
check an estimator in closed loop: how well the vehicle tracks the path when its
controllers see the estimate, and how far the estimate is from the truth
(:func:`fly_figure_eight`). The open-loop check, on synthetic truth without PyBullet, is
:mod:`pyflyt_like.estimation.reference_flight`.

The figure-eight: ``x = A sin(w t)``, ``y = B sin(2 w t)``, ``z = 1`` m with ``(A, B)`` =
:data:`AMPLITUDE` = (2, 1) m and a :data:`PERIOD` of 30 s (speeds up to 0.45 m/s), yaw
along the path, flown as mode-7 position setpoints each control step after a
:data:`SETTLE` = 5 s hover at its start point (the EKF settles). The sensor sets are those
of :mod:`pyflyt_like.estimation.reference_flight` (``REAL_SENSORS`` by default).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyflyt_like.core import Aviary
from pyflyt_like.estimation.evaluation import attitude_errors, rms
from pyflyt_like.estimation.reference_flight import REAL_SENSORS, kinematics

#: The vehicles :func:`fly_figure_eight` flies: name -> (``drone_type``, ``drone_options``).
VEHICLES: dict[str, tuple[str, dict[str, Any]]] = {
    "quadx": ("quadx", {}),
    "crazyflie21": ("multirotor", {"drone_model": "crazyflie21"}),
}
AMPLITUDE = (2.0, 1.0)  # m, (x, y)
PERIOD = 30.0  # s
HEIGHT = 1.0  # m
SETTLE = 5.0  # s of hover before the figure


def reference(t: float, amplitude: tuple[float, float] = AMPLITUDE) -> np.ndarray:
    """(3,) the figure-eight's position [m] at ``t`` [s] after its start (a fixed point for
    amplitudes 0): :func:`~pyflyt_like.estimation.reference_flight.kinematics`' path."""
    return kinematics(np.array([float(t)]), amplitude, PERIOD, HEIGHT)[0][0]


def heading(t: float, amplitude: tuple[float, float] = AMPLITUDE) -> float:
    """The figure-eight's heading [rad] at ``t`` [s]: along its velocity. The vehicle turns,
    which makes the magnetometer's hard-iron residual and the accelerometer's horizontal
    biases observable (a vehicle that never turns cannot tell them from a yaw or a tilt)."""
    velocity = kinematics(np.array([float(t)]), amplitude, PERIOD, HEIGHT)[1][0]
    return math.atan2(velocity[1], velocity[0])


def fly_figure_eight(vehicle: str, seconds: float, sensors: dict[str, Any] | None = None,
                     state_source: str = "estimate", seed: int = 0,
                     delay: int = 0, amplitude: tuple[float, float] = AMPLITUDE
                     ) -> dict[str, Any]:
    """Fly ``vehicle`` (a key of :data:`VEHICLES`) with the EKF on ``sensors`` (a
    ``drone_options["sensors"]`` configuration; None: :data:`REAL_SENSORS`) along
    ``seconds`` [s] of the figure-eight of ``amplitude`` (x, y) [m] ((0, 0): hold its start
    point). ``state_source`` ("estimate" or "truth") is what the controllers see, ``delay``
    the ``control_delay_steps`` [physics steps], ``seed`` the Aviary's.

    Returns the records after each control step of the figure (after :data:`SETTLE`):
    ``time`` (n,) [s], ``reference``, ``truth``, ``estimate`` positions (n, 3) [m],
    ``velocity`` and ``velocity_estimate`` (n, 3) [m/s], ``attitude_error`` (n,) [rad],
    and the RMS figures ``tracking`` (truth vs reference, 3-D) [m], ``position`` [m],
    ``velocity_rms`` [m/s] and ``attitude`` [deg] (estimate vs truth).
    """
    drone_type, options = VEHICLES[vehicle]
    start = np.array([[0.0, 0.0, HEIGHT]])
    options = {**options, "sensors": REAL_SENSORS if sensors is None else sensors,
               "estimator": "ekf", "state_source": state_source,
               "control_delay_steps": delay}
    records: dict[str, list] = {key: [] for key in ("time", "reference", "truth", "estimate",
                                                     "velocity", "velocity_estimate",
                                                     "quaternion", "quaternion_estimate")}
    with Aviary(start_pos=start, start_orn=np.zeros((1, 3)), drone_type=drone_type,
                seed=seed, drone_options=options) as aviary:
        drone = aviary.drones[0]
        period = drone.control_period
        aviary.set_mode(7)
        steps = int(round((SETTLE + seconds) / period))
        for k in range(steps):
            t = max(k * period - SETTLE, 0.0)
            target = reference(t, amplitude)
            aviary.set_setpoint(0, np.array((target[0], target[1], heading(t, amplitude),
                                             target[2])))
            aviary.step()
            t = (k + 1) * period - SETTLE
            if t <= 0.0:
                continue
            estimate = aviary.read_estimate(0)
            records["time"].append(t)
            records["reference"].append(reference(t, amplitude))
            records["truth"].append(drone.state[3].copy())
            records["estimate"].append(estimate["position"])
            records["velocity"].append(drone.world_velocity.copy())
            records["velocity_estimate"].append(estimate["velocity"])
            records["quaternion"].append(np.array(drone.quaternion, dtype=float))
            records["quaternion_estimate"].append(estimate["quaternion"])
    out: dict[str, Any] = {key: np.array(value) for key, value in records.items()}
    out["attitude_error"] = attitude_errors(out.pop("quaternion_estimate"),
                                            out.pop("quaternion"))
    out["tracking"] = rms(out["truth"] - out["reference"])
    out["position"] = rms(out["estimate"] - out["truth"])
    out["velocity_rms"] = rms(out["velocity_estimate"] - out["velocity"])
    out["attitude"] = math.degrees(rms(out["attitude_error"]))
    return out
