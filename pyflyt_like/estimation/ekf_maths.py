"""The error-state EKF's prediction and updates on flat arrays: the one home of its maths.

:class:`~pyflyt_like.estimation.ekf.ErrorStateEkf` calls these functions as they are (numpy);
the PyBullet vehicles' onboard estimator runs them compiled by numba
(:mod:`pyflyt_like.compiled.onboard`), which is why they take arrays and numbers only, write
their results in place and call no Python object. The equations and their sources are in
docs/estimation.md and :mod:`pyflyt_like.estimation.ekf`.

Arrays:

- ``x`` (:data:`NOMINAL_SIZE`,) the nominal state: position at :data:`P` [m, world], velocity
  at :data:`V` [m/s, world], quaternion at :data:`Q` (x, y, z, w) body to world,
  accelerometer bias at :data:`BA` [m/s^2], gyroscope bias at :data:`BG` [rad/s],
  magnetometer hard-iron residual at :data:`BM` [uT], barometer drift at :data:`BB` [m], and
  the last world acceleration at :data:`AW` [m/s^2] (the GNSS latency's extrapolation);
- ``cov`` (n, n) the error state's covariance, n = 15 to 19: (dp, dv, dtheta, db_a, db_g,
  [db_m at ``ibm``], [db_b at ``ibb``]); ``ibm``, ``ibb`` are -1 when not estimated.
"""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.common.rotations import (
    quat_times_rotation,
    quat_to_matrix,
    times_vector,
    transpose_times_vector,
)

#: Where each part of the nominal state starts (a 3-vector but Q, 4, and BB, 1).
P, V, Q, BA, BG, BM, BB, AW = 0, 3, 6, 10, 13, 16, 19, 20
NOMINAL_SIZE = 23


def turn(x, rx, ry, rz):
    """Turn the nominal quaternion by the body-frame rotation vector (rx, ry, rz) [rad]."""
    qx, qy, qz, qw = quat_times_rotation(x[6], x[7], x[8], x[9], rx, ry, rz)
    x[6], x[7], x[8], x[9] = qx, qy, qz, qw


def predict(x, cov, accel, gyro, dt, mount, gravity, noise, ibb, drift_tau, drift_m,
            by_blocks=False):
    """Propagate ``x`` and ``cov`` ``dt`` [s] on with one IMU sample, in place.

    Args:
        accel, gyro: (3,) specific force [m/s^2] and rates [rad/s] in the sensor frame.
        mount: (3, 3) sensor-to-body rotation.
        gravity: its magnitude [m/s^2] (along world -z).
        noise: (4,) the process noise densities squared: accelerometer white, gyroscope
            white, accelerometer random walk, gyroscope random walk.
        ibb, drift_tau, drift_m: the barometer drift's index (-1: none), time constant [s]
            and standard deviation [m].
        by_blocks: F P F^T by the blocks of F, in loops (compiled code, where the two
            dense products and their temporaries cost three times more), or as two dense
            products (numpy, where the loops would cost ten times more). The same sums in
            another order: the two agree to rounding.
    """
    # 3 x 3 products written out: BLAS calls on them cost more than the sums (compiled)
    fx, fy, fz = times_vector(mount.ravel(), accel[0], accel[1], accel[2])
    fx, fy, fz = fx - x[BA], fy - x[BA + 1], fz - x[BA + 2]
    wx, wy, wz = times_vector(mount.ravel(), gyro[0], gyro[1], gyro[2])
    wx, wy, wz = wx - x[BG], wy - x[BG + 1], wz - x[BG + 2]
    r = quat_to_matrix(x[Q], x[Q + 1], x[Q + 2], x[Q + 3])
    ax, ay, az = times_vector(r, fx, fy, fz)
    az -= gravity
    x[AW], x[AW + 1], x[AW + 2] = ax, ay, az
    for i in range(3):
        x[P + i] += x[V + i] * dt + 0.5 * x[AW + i] * dt * dt
        x[V + i] += x[AW + i] * dt
    turn(x, wx * dt, wy * dt, wz * dt)

    # F = I + blocks: dp += dt dv; dv += A dtheta + B db_a; dtheta = E dtheta - dt db_g;
    # the drift decays by phi (A = -R [f]x dt, B = -R dt, E = Exp(w dt)^T = Exp(-w dt))
    a = np.empty(9)
    for i in range(3):
        r0, r1, r2 = r[3 * i], r[3 * i + 1], r[3 * i + 2]
        a[3 * i] = -(r1 * fz - r2 * fy) * dt
        a[3 * i + 1] = -(r2 * fx - r0 * fz) * dt
        a[3 * i + 2] = -(r0 * fy - r1 * fx) * dt
    e = quat_to_matrix(*quat_times_rotation(0.0, 0.0, 0.0, 1.0, -wx * dt, -wy * dt,
                                            -wz * dt))
    phi = math.exp(-dt / drift_tau) if ibb >= 0 else 1.0
    n = cov.shape[0]
    if by_blocks:
        fp = np.empty((n, n))
        _transition_times(cov, dt, a, r, e, ibb, phi, fp)
        propagated = np.empty((n, n))
        _transition_times(fp.T, dt, a, r, e, ibb, phi, propagated)  # F (F P)^T = F P F^T
        for i in range(n):
            for j in range(i + 1):
                value = 0.5 * (propagated[i, j] + propagated[j, i])
                cov[i, j] = value
                cov[j, i] = value
    else:
        f = np.eye(n)
        for i in range(3):
            f[i, 3 + i] = dt
            f[6 + i, 12 + i] = -dt
            for j in range(3):
                f[3 + i, 6 + j] = a[3 * i + j]
                f[3 + i, 9 + j] = -r[3 * i + j] * dt
                f[6 + i, 6 + j] = e[3 * i + j]
        if ibb >= 0:
            f[ibb, ibb] = phi
        propagated = f @ cov @ f.T
        cov[:, :] = 0.5 * (propagated + propagated.T)
    for i in range(3):
        cov[3 + i, 3 + i] += noise[0] * dt
        cov[6 + i, 6 + i] += noise[1] * dt
        cov[9 + i, 9 + i] += noise[2] * dt
        cov[12 + i, 12 + i] += noise[3] * dt
    if ibb >= 0:
        cov[ibb, ibb] += drift_m * drift_m * (1.0 - phi * phi)


def _transition_times(m, dt, a, r, e, ibb, phi, out):
    """``out`` = F ``m`` (n, n) for the transition F of :func:`predict`, given its blocks
    A (``a`` (9,) row-major), -B / dt (``r`` (9,), the attitude R) and E (``e`` (9,))."""
    n = m.shape[0]
    for j in range(n):
        for i in range(n):
            out[i, j] = m[i, j]
        for i in range(3):
            out[i, j] += dt * m[3 + i, j]
            out[3 + i, j] += (a[3 * i] * m[6, j] + a[3 * i + 1] * m[7, j]
                              + a[3 * i + 2] * m[8, j]
                              - dt * (r[3 * i] * m[9, j] + r[3 * i + 1] * m[10, j]
                                      + r[3 * i + 2] * m[11, j]))
            out[6 + i, j] = (e[3 * i] * m[6, j] + e[3 * i + 1] * m[7, j]
                             + e[3 * i + 2] * m[8, j] - dt * m[12 + i, j])
        if ibb >= 0:
            out[ibb, j] *= phi


def update(x, cov, residual, h, r, ibm, ibb):
    """Kalman update in Joseph form of ``residual`` (m,) with the Jacobian ``h`` (m, n) and
    measurement covariance ``r`` (m, m), then injection of the error into ``x`` (the reset
    Jacobian taken as identity: dtheta is small) — in place."""
    n = cov.shape[0]
    ph = cov @ h.T
    s = h @ ph + r
    gain = np.linalg.solve(s, ph.T).T  # P H^T S^-1 (S symmetric)
    dx = gain @ residual
    ikh = np.eye(n) - gain @ h
    joseph = ikh @ cov @ ikh.T + gain @ r @ gain.T
    cov[:, :] = 0.5 * (joseph + joseph.T)
    x[P:P + 3] += dx[0:3]
    x[V:V + 3] += dx[3:6]
    turn(x, dx[6], dx[7], dx[8])
    x[BA:BA + 3] += dx[9:12]
    x[BG:BG + 3] += dx[12:15]
    if ibm >= 0:
        x[BM:BM + 3] += dx[ibm:ibm + 3]
    if ibb >= 0:
        x[BB] += dx[ibb]


def update_gnss(x, cov, position, velocity, lag, r_gnss, ibm, ibb):
    """Fuse a GNSS fix ``position`` (3,) [m] and ``velocity`` (3,) [m/s], measured ``lag``
    [s] ago (compared with the state extrapolated back along its velocity and last
    acceleration); ``r_gnss`` (6, 6)."""
    n = cov.shape[0]
    h = np.zeros((6, n))
    residual = np.empty(6)
    for i in range(3):
        h[i, i] = 1.0
        h[i, 3 + i] = -lag
        h[3 + i, 3 + i] = 1.0
        residual[i] = position[i] - (x[i] - x[3 + i] * lag + 0.5 * x[20 + i] * lag * lag)
        residual[3 + i] = velocity[i] - (x[3 + i] - x[20 + i] * lag)
    update(x, cov, residual, h, r_gnss, ibm, ibb)


def update_baro(x, cov, altitude, ground_altitude, r_baro, ibm, ibb):
    """Fuse a barometric ``altitude`` [m above sea level]: ``altitude - ground_altitude``
    measures world z (plus the drift when estimated); ``r_baro`` its variance [m^2]."""
    h = np.zeros((1, cov.shape[0]))
    h[0, 2] = 1.0
    expected = x[2] + ground_altitude
    if ibb >= 0:
        h[0, ibb] = 1.0
        expected += x[BB]
    residual = np.empty(1)
    residual[0] = altitude - expected
    r = np.empty((1, 1))
    r[0, 0] = r_baro
    update(x, cov, residual, h, r, ibm, ibb)


def update_mag(x, cov, field, world_field, hard_iron, r_mag, ibm, ibb):
    """Fuse a magnetometer sample ``field`` (3,) [uT, body] against ``R^T B + hard_iron
    (+ b_m)``, ``world_field`` B (3,) [uT, world]; ``r_mag`` (3, 3)."""
    r = quat_to_matrix(x[Q], x[Q + 1], x[Q + 2], x[Q + 3])
    bx, by, bz = transpose_times_vector(r, world_field[0], world_field[1], world_field[2])
    predicted = np.empty(3)
    predicted[0], predicted[1], predicted[2] = bx, by, bz
    h = np.zeros((3, cov.shape[0]))
    # R_true^T B = (I - [dtheta]x) R^T B = R^T B + [R^T B]x dtheta
    h[0, 7], h[0, 8] = -bz, by
    h[1, 6], h[1, 8] = bz, -bx
    h[2, 6], h[2, 7] = -by, bx
    expected = predicted + hard_iron
    if ibm >= 0:
        for i in range(3):
            h[i, ibm + i] = 1.0
        expected += x[BM:BM + 3]
    update(x, cov, field - expected, h, r_mag, ibm, ibb)
