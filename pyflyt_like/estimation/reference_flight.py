"""A synthetic multirotor flight with closed-form truth, to check an estimator against: the
truth at every physics step and the readings a :class:`~pyflyt_like.sensors.SensorSuite`
makes along it (:func:`record`). Score an estimator on them with
:mod:`pyflyt_like.estimation.evaluation`.

The path is a figure-eight, ``x = A sin(w t)``, ``y = B sin(2 w t)``, ``z = Z``
(:data:`AMPLITUDE_X`, :data:`AMPLITUDE_Y`, :data:`HEIGHT`, :data:`PERIOD`), so position,
velocity and acceleration are exact. The attitude is a multirotor's by differential
flatness: the thrust axis (body z) along ``a + g e3``, the heading (body x projected on the
horizontal) along the velocity. Body rates and their derivative are central finite
differences of the closed-form rotation (steps 1e-5 s and 1e-4 s: errors below 1e-8 rad/s and
1e-6 rad/s^2).

Frames and units as everywhere: world ENU, body FLU, quaternions (x, y, z, w) body to
world, SI units. Numpy only: usable on either engine's readings.

Example::

    from pyflyt_like.estimation import ErrorStateEkf
    from pyflyt_like.estimation.evaluation import errors, run
    from pyflyt_like.estimation.reference_flight import REAL_SENSORS, record

    truth, readings, suite = record(REAL_SENSORS, 90.0, seed=0)
    print(errors(truth, run(ErrorStateEkf.from_params(suite.params), readings), 10.0))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyflyt_like.sensors import SensorSuite, presets

from ._shared import matrix_to_quat

AMPLITUDE_X, AMPLITUDE_Y, HEIGHT = 4.0, 2.0, 2.0  # m
PERIOD = 16.0  # s
GRAVITY = 9.81  # m/s^2

#: Realistic sensors: a BMI088 IMU, GNSS of 0.5 m horizontal white noise (no correlated
#: error), the default barometer and magnetometer. The docs' figures are measured with them.
REAL_SENSORS: dict[str, Any] = {
    "imu": "bmi088",
    "gnss": {"preset": "default", "horizontal_noise": 0.5, "correlated_horizontal": 0.0,
             "correlated_vertical": 0.0},
    "baro": "default",
    "mag": "default",
}
#: Every sensor's "ideal" preset: an estimator should match the truth closely on them.
IDEAL_SENSORS: dict[str, Any] = {"imu": "ideal", "gnss": "ideal", "baro": "ideal",
                                 "mag": "ideal"}
#: Every sensor's "default" preset (its GNSS has a 2 m correlated error that no filter can
#: remove: see docs/estimation.md): one home, the sensors' presets.
DEFAULT_SENSORS = presets.DEFAULT_SENSORS


def kinematics(t: np.ndarray, amplitude: tuple[float, float] = (AMPLITUDE_X, AMPLITUDE_Y),
               period: float = PERIOD, height: float = HEIGHT
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position [m], velocity [m/s], acceleration [m/s^2], each (len(t), 3) in the world
    frame, of the figure-eight of ``amplitude`` (x, y) [m], ``period`` [s] and ``height``
    [m] (by default this flight's) at times ``t`` (n,) [s]."""
    w = 2.0 * np.pi / period
    a, b = amplitude
    s1, c1, s2, c2 = np.sin(w * t), np.cos(w * t), np.sin(2 * w * t), np.cos(2 * w * t)
    zero, one = np.zeros_like(t), np.ones_like(t)
    pos = np.stack([a * s1, b * s2, height * one], axis=-1)
    vel = np.stack([a * w * c1, 2 * b * w * c2, zero], axis=-1)
    acc = np.stack([-a * w * w * s1, -4 * b * w * w * s2, zero], axis=-1)
    return pos, vel, acc


def rotation(t: np.ndarray) -> np.ndarray:
    """Body-to-world rotation matrices (len(t), 3, 3) at times ``t`` (n,) [s], by
    differential flatness."""
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
    """Body rates (len(t), 3) [rad/s] at times ``t`` (n,) [s]: vee(R^T dR/dt), dR/dt by
    central differences of step ``h`` [s]."""
    r = rotation(t)
    r_dot = (rotation(t + h) - rotation(t - h)) / (2 * h)
    omega = np.einsum("nji,njk->nik", r, r_dot)
    return np.stack([omega[:, 2, 1], omega[:, 0, 2], omega[:, 1, 0]], axis=-1)


def truth(duration: float, physics_hz: int) -> dict[str, np.ndarray]:
    """The true state at every physics step of ``duration`` [s] at ``physics_hz`` [Hz]:
    ``time`` (n,) [s], ``position`` [m], ``velocity`` [m/s], ``acceleration`` [m/s^2]
    (world), ``ang_vel`` [rad/s], ``ang_accel`` [rad/s^2] (body), each (n, 3), and
    ``quaternion`` (n, 4) (x, y, z, w) body to world."""
    t = np.arange(int(round(duration * physics_hz))) / physics_hz
    pos, vel, acc = kinematics(t)
    quat = np.array([matrix_to_quat(r) for r in rotation(t)])
    h = 1e-4
    ang_accel = (body_rates(t + h) - body_rates(t - h)) / (2 * h)
    return {"time": t, "position": pos, "velocity": vel, "acceleration": acc,
            "quaternion": quat, "ang_vel": body_rates(t), "ang_accel": ang_accel}


def record(config: dict[str, Any], duration: float, physics_hz: int = 200,
           seed: int = 0) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], SensorSuite]:
    """Fly the figure-eight for ``duration`` [s] through a :class:`SensorSuite` of
    ``config`` (as :data:`REAL_SENSORS`) sampled at ``physics_hz`` [Hz] with ``seed``.

    Returns the truth (:func:`truth`), the readings at every physics step (n dicts in the
    :meth:`SensorSuite.read` layout) and the suite (its ``params`` build the filters).
    """
    state = truth(duration, physics_hz)
    suite = SensorSuite(config, physics_hz, seed=seed, gravity=GRAVITY)
    readings = [suite.update(state["position"][k], state["velocity"][k],
                             state["acceleration"][k], state["quaternion"][k],
                             state["ang_vel"][k], state["ang_accel"][k])
                for k in range(len(state["time"]))]
    return state, readings, suite
