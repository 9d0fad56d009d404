"""A synthetic multirotor flight with closed-form truth, for the estimators' tests and
``scripts/plot_estimation.py``.

The path is a figure-eight, ``x = A sin(w t)``, ``y = B sin(2 w t)``, ``z = Z``, so position,
velocity and acceleration are exact. The attitude is a multirotor's by differential
flatness: the thrust axis (body z) along ``a + g e3``, the heading (body x projected on the
horizontal) along the velocity. Body rates and their derivative are central finite
differences of the closed-form rotation (steps 1e-5 s and 1e-4 s: errors below 1e-8 rad/s and
1e-6 rad/s^2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyflyt_like.estimation._shared import matrix_to_quat
from pyflyt_like.sensors import SensorSuite

AMPLITUDE_X, AMPLITUDE_Y, HEIGHT = 4.0, 2.0, 2.0  # m
PERIOD = 16.0  # s
GRAVITY = 9.81

#: The brief's configuration: BMI088 IMU, GNSS of 0.5 m horizontal white noise (no
#: correlated error), default barometer and magnetometer.
REAL_SENSORS = {
    "imu": "bmi088",
    "gnss": {"preset": "default", "horizontal_noise": 0.5, "correlated_horizontal": 0.0,
             "correlated_vertical": 0.0},
    "baro": "default",
    "mag": "default",
}
IDEAL_SENSORS = {"imu": "ideal", "gnss": "ideal", "baro": "ideal", "mag": "ideal"}


def kinematics(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position, velocity, acceleration (len(t), 3) of the path at times ``t`` [s]."""
    w = 2.0 * np.pi / PERIOD
    a, b = AMPLITUDE_X, AMPLITUDE_Y
    s1, c1, s2, c2 = np.sin(w * t), np.cos(w * t), np.sin(2 * w * t), np.cos(2 * w * t)
    zero, one = np.zeros_like(t), np.ones_like(t)
    pos = np.stack([a * s1, b * s2, HEIGHT * one], axis=-1)
    vel = np.stack([a * w * c1, 2 * b * w * c2, zero], axis=-1)
    acc = np.stack([-a * w * w * s1, -4 * b * w * w * s2, zero], axis=-1)
    return pos, vel, acc


def rotation(t: np.ndarray) -> np.ndarray:
    """Body-to-world rotations (len(t), 3, 3) by differential flatness."""
    _, vel, acc = kinematics(t)
    thrust = acc + np.array([0.0, 0.0, GRAVITY])
    z_b = thrust / np.linalg.norm(thrust, axis=-1, keepdims=True)
    heading = np.arctan2(vel[:, 1], vel[:, 0])
    x_c = np.stack([np.cos(heading), np.sin(heading), np.zeros_like(t)], axis=-1)
    y_b = np.cross(z_b, x_c)
    y_b /= np.linalg.norm(y_b, axis=-1, keepdims=True)
    x_b = np.cross(y_b, z_b)
    return np.stack([x_b, y_b, z_b], axis=-1)


def body_rates(t: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Body rates (len(t), 3) [rad/s]: vee(R^T dR/dt), dR/dt by central differences."""
    r = rotation(t)
    r_dot = (rotation(t + h) - rotation(t - h)) / (2 * h)
    omega = np.einsum("nji,njk->nik", r, r_dot)
    return np.stack([omega[:, 2, 1], omega[:, 0, 2], omega[:, 1, 0]], axis=-1)


def truth(duration: float, physics_hz: int) -> dict[str, np.ndarray]:
    """The true state at every physics step of ``duration`` [s]: time (n,), position,
    velocity, acceleration, ang_vel, ang_accel (n, 3), quaternion (n, 4)."""
    t = np.arange(int(round(duration * physics_hz))) / physics_hz
    pos, vel, acc = kinematics(t)
    quat = np.array([matrix_to_quat(r) for r in rotation(t)])
    h = 1e-4
    ang_accel = (body_rates(t + h) - body_rates(t - h)) / (2 * h)
    return {"time": t, "position": pos, "velocity": vel, "acceleration": acc,
            "quaternion": quat, "ang_vel": body_rates(t), "ang_accel": ang_accel}


def record(config: dict[str, Any], duration: float, physics_hz: int = 200,
           seed: int = 0) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], SensorSuite]:
    """Fly the figure-eight through a :class:`SensorSuite`; returns the truth, the readings
    at every physics step and the suite (its ``params`` build the filters)."""
    state = truth(duration, physics_hz)
    suite = SensorSuite(config, physics_hz, seed=seed, gravity=GRAVITY)
    readings = [suite.update(state["position"][k], state["velocity"][k],
                             state["acceleration"][k], state["quaternion"][k],
                             state["ang_vel"][k], state["ang_accel"][k])
                for k in range(len(state["time"]))]
    return state, readings, suite


def attitude_errors(estimate: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Angle [rad] of the rotation between estimated and true quaternions ((n, 4) each)."""
    dot = np.abs(np.sum(estimate * true, axis=-1)).clip(0.0, 1.0)
    return 2.0 * np.arccos(dot)


def rms(values: np.ndarray) -> float:
    """Root mean square of the norms along the last axis (or of scalars)."""
    values = np.asarray(values)
    squares = values ** 2 if values.ndim == 1 else np.sum(values ** 2, axis=-1)
    return float(np.sqrt(np.mean(squares)))
