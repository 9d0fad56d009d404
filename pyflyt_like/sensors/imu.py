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

``y_k = Q(sat(M v_s + b_on + b_k + sigma_d n_k))``

with ``sigma_d = noise_density / sqrt(dt)`` (Kalibr's discrete white noise), ``M = (I + S)(I
+ E)`` the scale-factor errors ``S`` (diagonal) times the axis misalignment ``E``
(off-diagonal, small angles [rad]), ``b_on`` the turn-on bias; ``S``, ``E`` and ``b_on`` are
drawn at reset from normals of the given standard deviations. ``sat`` clips to +-range (0:
no saturation) and ``Q`` rounds to a multiple of the resolution (0: none). ``n_k`` are
standard normal draws.

``b_k`` is the bias random walk (Kalibr's ``random_walk`` K), 0 at reset, stepped once every
``W`` samples and held in between: ``b_{k+1} = b_k + K sqrt(W dt) m_k`` when ``k + 1`` is a
multiple of ``W``, else ``b_{k+1} = b_k`` (``m_k`` standard normal draws). ``W`` =
:func:`walk_samples` is the most samples that fit in :data:`WALK_INTERVAL` (20 ms), at
least 1: 10 at 500 Hz, 4 at 240 Hz, 1 at 50 Hz and below (a step every sample, Kalibr's
discrete model as it is). Why: on the batched engine the normal draws cost as much as the
rest of the IMU's sample, and a walk stepped every sample takes 6 per sample besides the
white noise's 6; stepped every ``W`` samples it takes ``6 / W``. At the instants
``j W dt`` the walk is exactly Kalibr's (each step's variance ``K^2 W dt``); in between the
held bias differs from a walk stepped every sample by a standard deviation below
``K sqrt(W dt)`` (the BMI088 gyroscope: 1.6e-7 rad/s, against its white noise of 5.5e-3
rad/s per 500 Hz sample), so the Allan deviation keeps ``K sqrt(tau / 3)`` wherever the
walk shows (tau of seconds and more; tests/sensors/test_imu_allan.py checks it at 500 Hz).

The per-sample functions (:func:`specific_force`, :func:`reset`, :func:`sample`,
:func:`sample_draws`) are plain Python on floats and small arrays, without allocation, so
numba compiles them as they are (:func:`pyflyt_like.compiled.jit.compile_shared`). Their
arrays:

- ``coefficients`` (:data:`COEFFICIENT_SIZE`,), :attr:`ImuParams.coefficients`: per sensor
  ``s`` (:data:`ACCEL`, :data:`GYRO`) at ``s * BLOCK``: white sigma_d, walk step
  ``K sqrt(W dt)``, range, resolution, turn-on bias sigma, scale-factor sigma,
  misalignment sigma; then the mounting rotation ``R_bs`` (9, row-major) at
  :data:`MOUNT_ROTATION`, position [m] (3) at :data:`MOUNT_POSITION` and ``W`` at
  :data:`WALK_SAMPLES`;
- ``state`` (:data:`STATE_SIZE`,), :func:`zeros_state`: per sensor at
  ``s * STATE_BLOCK``: ``M R_bs^T`` (9, row-major: the mounting rotation folded in at
  reset), turn-on bias (3), bias random walk (3); then at :data:`WALK_COUNT` the samples
  since the walk's last step.
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
WALK_SAMPLES = MOUNT_POSITION + 3
COEFFICIENT_SIZE = WALK_SAMPLES + 1

STATE_BLOCK = 15  # state per sensor
MATRIX, BIAS_ON, BIAS_WALK = 0, 9, 12
WALK_COUNT = 2 * STATE_BLOCK
STATE_SIZE = WALK_COUNT + 1

RESET_DRAWS = 24  # per sensor: turn-on bias 3, scale factor 3, misalignment 6
WHITE_DRAWS = 6  # every sample: white noise, accelerometer 3 then gyroscope 3
#: The most draws a sample takes: the white noise, then when the walk steps its draws
#: (accelerometer 3, gyroscope 3); :func:`sample_draws` tells which.
SAMPLE_DRAWS = 12
#: The longest time [s] the bias random walk is held between two steps (module docstring).
WALK_INTERVAL = 0.02


def walk_samples(dt: float) -> int:
    """``W``: samples per step of the bias random walk at the sample period ``dt`` [s], the
    most that fit in :data:`WALK_INTERVAL`, at least 1."""
    # the tolerance keeps an exact fit (20 ms at 500 Hz: 10 samples) whole
    return max(1, math.floor(WALK_INTERVAL / dt + 1e-9))


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


#: Keys of Kalibr's ``imu.yaml`` that are no parameter of ours: accepted in a parameter
#: dict (a string, as Kalibr requires) and ignored, so that a Kalibr file can be pasted.
KALIBR_EXTRA_KEYS = ("rostopic",)
#: The parameters a Kalibr ``imu.yaml`` gives, in its units (continuous-time densities, as
#: ours): :func:`pyflyt_like.sensors.load_kalibr_imu` reads them.
KALIBR_PARAMETERS = ("update_rate", "accelerometer_noise_density",
                     "accelerometer_random_walk", "gyroscope_noise_density",
                     "gyroscope_random_walk")


def check_parameters(values: dict, name: str) -> None:
    """The checks across parameters (each one alone is checked by the configuration):
    ``values`` the converted parameters (``update_rate`` resolved), ``name`` the option
    (``sensors["imu"]``).

    Raises:
        ValueError: a noise density whose per-sample standard deviation
            ``N sqrt(update_rate)`` is beyond the largest float (the readings would be inf).
    """
    root_rate = math.sqrt(values["update_rate"])
    for sensor in ("accelerometer", "gyroscope"):
        key = f"{sensor}_noise_density"
        if not math.isfinite(values[key] * root_rate):
            raise ValueError(f'{name}["{key}"]={values[key]:g} {PARAMETERS[key].unit} '
                             f"gives a per-sample standard deviation N sqrt(update_rate) "
                             f"beyond the largest float at {values['update_rate']} Hz")


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
        walk = walk_samples(self.dt)
        root_walk_dt = math.sqrt(walk * self.dt)
        for s, name in ((ACCEL, "accelerometer"), (GYRO, "gyroscope")):
            block = c[s * BLOCK:(s + 1) * BLOCK]
            block[WHITE] = getattr(self, f"{name}_noise_density") / root_dt
            block[WALK] = getattr(self, f"{name}_random_walk") * root_walk_dt
            block[RANGE] = getattr(self, f"{name}_range")
            block[RESOLUTION] = getattr(self, f"{name}_resolution")
            block[TURN_ON_BIAS] = getattr(self, f"{name}_turn_on_bias")
            block[SCALE_FACTOR] = getattr(self, f"{name}_scale_factor")
            block[MISALIGNMENT] = getattr(self, f"{name}_misalignment")
        c[MOUNT_ROTATION:MOUNT_ROTATION + 9] = euler_to_matrix(*self.mounting_orientation)
        c[MOUNT_POSITION:MOUNT_POSITION + 3] = self.mounting_position
        c[WALK_SAMPLES] = walk
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
        ang_vel: (3,) body rates [rad/s].
        ang_accel: (3,) the body rates' derivative [rad/s^2].
        offset: (3,) the point's position from the reference point, body frame [m].
        gravity: its magnitude [m/s^2]; gravity points along world -z.
    """
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    fx, fy, fz = transpose_times_vector(r, accel[0], accel[1], accel[2] + gravity)
    ox, oy, oz = offset[0], offset[1], offset[2]
    if ox != 0.0 or oy != 0.0 or oz != 0.0:  # the lever arm's terms (none at the centre)
        tx, ty, tz = cross(ang_accel[0], ang_accel[1], ang_accel[2], ox, oy, oz)
        vx, vy, vz = cross(ang_vel[0], ang_vel[1], ang_vel[2], ox, oy, oz)
        cx, cy, cz = cross(ang_vel[0], ang_vel[1], ang_vel[2], vx, vy, vz)
        fx += tx + cx
        fy += ty + cy
        fz += tz + cz
    out[0] = fx
    out[1] = fy
    out[2] = fz


def reset(coefficients, normals, state):
    """Draw a new unit into ``state`` (:data:`STATE_SIZE`,) from ``normals``
    (:data:`RESET_DRAWS`,) standard normal draws: per sensor the turn-on bias (3), the
    scale factors (3) and the misalignment angles (6) make ``M``, kept times the mounting
    rotation's transpose (``M R_bs^T``: one product per sample instead of two); the bias
    random walk restarts at 0, its count of samples too."""
    mount = coefficients[MOUNT_ROTATION:MOUNT_ROTATION + 9]
    for s in range(2):
        c = s * BLOCK
        z = s * STATE_BLOCK
        d = s * 12
        for i in range(3):
            state[z + BIAS_ON + i] = coefficients[c + TURN_ON_BIAS] * normals[d + i]
            state[z + BIAS_WALK + i] = 0.0
            scale = 1.0 + coefficients[c + SCALE_FACTOR] * normals[d + 3 + i]
            # row i of M = (I + S)(I + E): scale times (1 on the diagonal, the two angles)
            k = 0
            row0 = row1 = row2 = 0.0
            for j in range(3):
                if i == j:
                    m = scale
                else:
                    m = scale * coefficients[c + MISALIGNMENT] * normals[d + 6 + 2 * i + k]
                    k += 1
                # (M R_bs^T)[i, l] = sum_j M[i, j] R_bs[l, j]
                row0 += m * mount[j]
                row1 += m * mount[3 + j]
                row2 += m * mount[6 + j]
            state[z + MATRIX + 3 * i] = row0
            state[z + MATRIX + 3 * i + 1] = row1
            state[z + MATRIX + 3 * i + 2] = row2
    state[WALK_COUNT] = 0.0


def measure(coefficients, s, x, y, z, normals, state, out):
    """Sensor ``s``'s reading of the true vector (x, y, z) (body frame: the mounting
    rotation is in the state's matrix) into ``out`` (3,); ``normals`` are the draws of
    :func:`sample`, its white noise at ``3 * s``."""
    c = s * BLOCK
    b = s * STATE_BLOCK
    white = coefficients[c + WHITE]
    limit, step = coefficients[c + RANGE], coefficients[c + RESOLUTION]
    for i in range(3):
        m = b + MATRIX + 3 * i
        value = (state[m] * x + state[m + 1] * y + state[m + 2] * z
                 + state[b + BIAS_ON + i] + state[b + BIAS_WALK + i]
                 + white * normals[3 * s + i])
        out[i] = saturate_quantise(value, limit, step)


def sample_draws(coefficients, state):
    """The standard normal draws the next :func:`sample` takes: :data:`WHITE_DRAWS`, or
    :data:`SAMPLE_DRAWS` when the bias random walk steps after it."""
    if state[WALK_COUNT] + 1.0 >= coefficients[WALK_SAMPLES]:
        return SAMPLE_DRAWS
    return WHITE_DRAWS


def sample(coefficients, accel, quat, ang_vel, ang_accel, gravity, normals, state,
           accel_out, gyro_out):
    """One IMU sample of the true state into ``accel_out`` [m/s^2] and ``gyro_out``
    [rad/s] ((3,) each, sensor frame), then the bias random walk one sample on (a step
    every ``W = coefficients[WALK_SAMPLES]`` samples).

    Args:
        coefficients: (:data:`COEFFICIENT_SIZE`,) :attr:`ImuParams.coefficients`.
        accel, quat, ang_vel, ang_accel, gravity: as :func:`specific_force`.
        normals: (:func:`sample_draws`,) standard normal draws, or more (the rest unused;
            :data:`SAMPLE_DRAWS` always suffice): the accelerometer's white noise (3), the
            gyroscope's (3), then when the walk steps its draws, accelerometer (3) and
            gyroscope (3).
        state: (:data:`STATE_SIZE`,) from :func:`reset`.
    """
    specific_force(accel, quat, ang_vel, ang_accel,
                   coefficients[MOUNT_POSITION:MOUNT_POSITION + 3], gravity, accel_out)
    measure(coefficients, ACCEL, accel_out[0], accel_out[1], accel_out[2], normals, state,
            accel_out)
    measure(coefficients, GYRO, ang_vel[0], ang_vel[1], ang_vel[2], normals, state, gyro_out)
    count = state[WALK_COUNT] + 1.0
    if count >= coefficients[WALK_SAMPLES]:
        count = 0.0
        for s in range(2):
            step = coefficients[s * BLOCK + WALK]
            for i in range(3):
                state[s * STATE_BLOCK + BIAS_WALK + i] += step * normals[
                    WHITE_DRAWS + 3 * s + i]
    state[WALK_COUNT] = count
