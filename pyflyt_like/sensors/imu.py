"""The IMU: an accelerometer measuring specific force and a gyroscope measuring body rates.

Truth, body frame (FLU), at the mounting point ``r`` [m] (body frame, from the point whose
acceleration is given, the centre of mass):

- specific force ``f = R^T (a - g) + w_dot x r + w x (w x r)`` [m/s^2], ``R`` the
  body-to-world rotation, ``a`` the world acceleration, ``g = (0, 0, -gravity)``: a hovering
  vehicle reads ``+gravity`` on body z, a free-falling one 0;
- body rates ``w`` [rad/s] (``w_dot`` [rad/s^2] their derivative).

Both are turned into the sensor frame by the mounting rotation ``R_bs`` (sensor to body):
``v_s = R_bs^T v_b``. Then per sensor (accelerometer, gyroscope), sample ``k`` at the
sensor's period ``dt = 1 / update_rate``:

``y = Q(sat(M v_s + b_on + b_k + sigma_d n_k))``, ``b_{k+1} = b_k + walk sqrt(dt) m_k``

with ``sigma_d = noise_density / sqrt(dt)`` (Kalibr's discrete white noise), ``b_k`` the
bias random walk (0 at reset), ``M = (I + S)(I + E)`` the scale-factor errors ``S``
(diagonal) times the axis misalignment ``E`` (off-diagonal, small angles [rad]), ``b_on``
the turn-on bias; ``S``, ``E`` and ``b_on`` are drawn at reset from normals of the given
standard deviations. ``sat`` clips to +-range (0: no saturation) and ``Q`` rounds to a
multiple of the resolution (0: none). ``n_k``, ``m_k`` are standard normal draws.

The per-sample functions (:func:`specific_force`, :func:`reset`, :func:`sample`) are plain
Python on floats and small arrays, without allocation, so numba compiles them as they are
(:func:`pyflyt_like.compiled.jit.compile_shared`). Their arrays:

- ``coefficients`` (:data:`COEFFICIENT_SIZE`,), :attr:`ImuParams.coefficients`: per sensor
  ``s`` (:data:`ACCEL`, :data:`GYRO`) at ``s * BLOCK``: white sigma_d, walk step
  ``walk sqrt(dt)``, range, resolution, turn-on bias sigma, scale-factor sigma,
  misalignment sigma; then the mounting rotation ``R_bs`` (9, row-major) at
  :data:`MOUNT_ROTATION` and position [m] (3) at :data:`MOUNT_POSITION`;
- ``state`` (:data:`STATE_SIZE`,), :func:`zeros_state`: per sensor at
  ``s * STATE_BLOCK``: ``M`` (9, row-major), turn-on bias (3), bias random walk (3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.rotations import (
    cross,
    euler_to_matrix,
    quat_to_matrix,
    transpose_times_vector,
)

from .noise import saturate_quantise
from .params import UPDATE_RATE, Parameter, SensorParams

ACCEL, GYRO = 0, 1
BLOCK = 7  # coefficients per sensor
WHITE, WALK, RANGE, RESOLUTION, TURN_ON_BIAS, SCALE_FACTOR, MISALIGNMENT = range(BLOCK)
MOUNT_ROTATION = 2 * BLOCK
MOUNT_POSITION = MOUNT_ROTATION + 9
COEFFICIENT_SIZE = MOUNT_POSITION + 3

STATE_BLOCK = 15  # state per sensor
MATRIX, BIAS_ON, BIAS_WALK = 0, 9, 12
STATE_SIZE = 2 * STATE_BLOCK

RESET_DRAWS = 24  # per sensor: turn-on bias 3, scale factor 3, misalignment 6
SAMPLE_DRAWS = 12  # per sensor: white noise 3, bias random walk 3

_SENSOR_PARAMETERS = {
    "{}_noise_density": ("m/s^2/sqrt(Hz)", "rad/s/sqrt(Hz)", "white noise density (Kalibr)"),
    "{}_random_walk": ("m/s^3/sqrt(Hz)", "rad/s^2/sqrt(Hz)", "bias random walk (Kalibr)"),
    "{}_turn_on_bias": ("m/s^2", "rad/s", "standard deviation of the constant bias drawn "
                        "at reset, per axis"),
    "{}_scale_factor": ("1", "1", "standard deviation of the scale-factor error drawn at "
                        "reset, per axis (0.01 = 1 %)"),
    "{}_misalignment": ("rad", "rad", "standard deviation of each of the 6 axis "
                        "misalignment angles drawn at reset"),
    "{}_range": ("m/s^2", "rad/s", "saturation: readings clip to +-range; 0: none"),
    "{}_resolution": ("m/s^2", "rad/s", "quantisation step (1 LSB); 0: none"),
}

#: The IMU's parameters (name -> :class:`~pyflyt_like.sensors.params.Parameter`).
PARAMETERS = {"update_rate": UPDATE_RATE}
for _sensor, _column in (("accelerometer", 0), ("gyroscope", 1)):
    for _pattern, _row in _SENSOR_PARAMETERS.items():
        PARAMETERS[_pattern.format(_sensor)] = Parameter("number", _row[_column], _row[2],
                                                         0.0, None)
del _sensor, _column, _pattern, _row
PARAMETERS["mounting_position"] = Parameter(
    "vector", "m", "the sensor's position in the body frame, from the centre of mass")
PARAMETERS["mounting_orientation"] = Parameter(
    "vector", "rad", "roll, pitch, yaw of the sensor frame in the body frame "
    "(R_bs = Rz(yaw) Ry(pitch) Rx(roll), sensor to body)")


@dataclass(frozen=True, eq=False, kw_only=True)
class ImuParams(SensorParams):
    """The IMU's parameters (names and units: :data:`PARAMETERS`); arrays are (3,)."""

    accelerometer_noise_density: float
    accelerometer_random_walk: float
    accelerometer_turn_on_bias: float
    accelerometer_scale_factor: float
    accelerometer_misalignment: float
    accelerometer_range: float
    accelerometer_resolution: float
    gyroscope_noise_density: float
    gyroscope_random_walk: float
    gyroscope_turn_on_bias: float
    gyroscope_scale_factor: float
    gyroscope_misalignment: float
    gyroscope_range: float
    gyroscope_resolution: float
    mounting_position: np.ndarray
    mounting_orientation: np.ndarray

    def _coefficients(self) -> np.ndarray:
        c = np.zeros(COEFFICIENT_SIZE)
        root_dt = math.sqrt(self.dt)
        for s, name in ((ACCEL, "accelerometer"), (GYRO, "gyroscope")):
            block = c[s * BLOCK:(s + 1) * BLOCK]
            block[WHITE] = getattr(self, f"{name}_noise_density") / root_dt
            block[WALK] = getattr(self, f"{name}_random_walk") * root_dt
            block[RANGE] = getattr(self, f"{name}_range")
            block[RESOLUTION] = getattr(self, f"{name}_resolution")
            block[TURN_ON_BIAS] = getattr(self, f"{name}_turn_on_bias")
            block[SCALE_FACTOR] = getattr(self, f"{name}_scale_factor")
            block[MISALIGNMENT] = getattr(self, f"{name}_misalignment")
        c[MOUNT_ROTATION:MOUNT_ROTATION + 9] = euler_to_matrix(*self.mounting_orientation)
        c[MOUNT_POSITION:MOUNT_POSITION + 3] = self.mounting_position
        return c


def zeros_state() -> np.ndarray:
    """A new IMU state (:data:`STATE_SIZE`,), all zeros (:func:`reset` fills it)."""
    return np.zeros(STATE_SIZE)


def specific_force(accel, quat, ang_vel, ang_accel, offset, gravity, out):
    """The specific force [m/s^2] at ``offset`` (3,) [m, body] into ``out`` (3,), body
    frame: ``R^T (a - g) + w_dot x r + w x (w x r)``.

    Args:
        accel: (3,) world acceleration of the reference point (centre of mass) [m/s^2].
        quat: (4,) body-to-world quaternion (x, y, z, w).
        ang_vel, ang_accel: (3,) body rates [rad/s] and their derivative [rad/s^2].
        offset: (3,) the point's position from the reference point, body frame [m].
        gravity: its magnitude [m/s^2]; gravity points along world -z.
    """
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    fx, fy, fz = transpose_times_vector(r, accel[0], accel[1], accel[2] + gravity)
    tx, ty, tz = cross(ang_accel[0], ang_accel[1], ang_accel[2], offset[0], offset[1],
                       offset[2])
    vx, vy, vz = cross(ang_vel[0], ang_vel[1], ang_vel[2], offset[0], offset[1], offset[2])
    cx, cy, cz = cross(ang_vel[0], ang_vel[1], ang_vel[2], vx, vy, vz)
    out[0] = fx + tx + cx
    out[1] = fy + ty + cy
    out[2] = fz + tz + cz


def reset(coefficients, normals, state):
    """Draw a new unit into ``state`` (:data:`STATE_SIZE`,) from ``normals``
    (:data:`RESET_DRAWS`,) standard normal draws: per sensor the turn-on bias (3), the
    scale factors (3) and the misalignment angles (6) make ``M``; the bias random walk
    restarts at 0."""
    for s in range(2):
        c = s * BLOCK
        z = s * STATE_BLOCK
        d = s * 12
        for i in range(3):
            state[z + BIAS_ON + i] = coefficients[c + TURN_ON_BIAS] * normals[d + i]
            state[z + BIAS_WALK + i] = 0.0
            scale = 1.0 + coefficients[c + SCALE_FACTOR] * normals[d + 3 + i]
            k = 0  # the two off-diagonal angles of row i
            for j in range(3):
                if i == j:
                    state[z + MATRIX + 3 * i + j] = scale
                else:
                    angle = coefficients[c + MISALIGNMENT] * normals[d + 6 + 2 * i + k]
                    state[z + MATRIX + 3 * i + j] = scale * angle
                    k += 1


def measure(coefficients, s, x, y, z, normals, state, out):
    """Sensor ``s``'s reading of the true sensor-frame vector (x, y, z) into ``out`` (3,),
    then its bias random walk one sample on; ``normals`` are the :data:`SAMPLE_DRAWS`
    draws of :func:`sample`."""
    c = s * BLOCK
    b = s * STATE_BLOCK
    d = s * 6
    for i in range(3):
        m = b + MATRIX + 3 * i
        value = (state[m] * x + state[m + 1] * y + state[m + 2] * z
                 + state[b + BIAS_ON + i] + state[b + BIAS_WALK + i]
                 + coefficients[c + WHITE] * normals[d + i])
        out[i] = saturate_quantise(value, coefficients[c + RANGE],
                                   coefficients[c + RESOLUTION])
        state[b + BIAS_WALK + i] += coefficients[c + WALK] * normals[d + 3 + i]


def sample(coefficients, accel, quat, ang_vel, ang_accel, gravity, normals, state,
           accel_out, gyro_out):
    """One IMU sample of the true state into ``accel_out`` [m/s^2] and ``gyro_out``
    [rad/s] ((3,) each, sensor frame); advances the bias random walks in ``state``.

    Args:
        coefficients: (:data:`COEFFICIENT_SIZE`,) :attr:`ImuParams.coefficients`.
        accel, quat, ang_vel, ang_accel, gravity: as :func:`specific_force`.
        normals: (:data:`SAMPLE_DRAWS`,) standard normal draws: accelerometer white (3),
            walk (3), then the gyroscope's.
        state: (:data:`STATE_SIZE`,) from :func:`reset`.
    """
    specific_force(accel, quat, ang_vel, ang_accel,
                   coefficients[MOUNT_POSITION:MOUNT_POSITION + 3], gravity, accel_out)
    mount = coefficients[MOUNT_ROTATION:MOUNT_ROTATION + 9]
    x, y, z = transpose_times_vector(mount, accel_out[0], accel_out[1], accel_out[2])
    measure(coefficients, ACCEL, x, y, z, normals, state, accel_out)
    x, y, z = transpose_times_vector(mount, ang_vel[0], ang_vel[1], ang_vel[2])
    measure(coefficients, GYRO, x, y, z, normals, state, gyro_out)
