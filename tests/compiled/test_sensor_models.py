"""Compile-readiness: every per-sample function, as both engines run it compiled
(:mod:`pyflyt_like.compiled.sensor_models`, :func:`pyflyt_like.compiled.jit.compile_shared`,
no reference-counted allocation), returns exactly the plain-Python result."""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.common.rotations import euler_to_quat
from pyflyt_like.compiled import sensor_models
from pyflyt_like.sensors import (
    barometer,
    gnss,
    imu,
    magnetometer,
    noise,
    rangefinder,
    resolve_sensor,
)

NOISY = {"imu": {"preset": "bmi088", "mounting_position": [0.05, -0.02, 0.01],
                 "mounting_orientation": [0.1, -0.2, 0.3]},
         "baro": "default", "mag": "default",
         "gnss": {"preset": "default", "update_rate": 10, "latency": 2, "time_to_fix": 0.2},
         "range": "default"}


def _pair(python_call, compiled_call, args, draws, repeats=12):
    """Call both on their own copies of ``args`` ``repeats`` times (the state carried from
    call to call), with new standard normal draws in ``args[draws]`` each time: every
    returned value and every array argument must agree exactly."""
    rng = np.random.default_rng(0)
    args_py = list(args)
    args_nb = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    for _ in range(repeats):
        args_py[draws][:] = rng.standard_normal(args_py[draws].shape[0])
        args_nb[draws][:] = args_py[draws]
        result_py = python_call(*args_py)
        result_nb = compiled_call(*args_nb)
        assert np.array_equal(np.asarray(result_py, float), np.asarray(result_nb, float),
                              equal_nan=True)  # None (nan) where nothing is returned
        for a, b in zip(args_py, args_nb):
            if isinstance(a, np.ndarray):
                assert np.array_equal(a, b)


def _coefficients(sensor):
    return resolve_sensor(sensor, NOISY[sensor], 240).coefficients.copy()


def test_every_per_sample_function_compiles_and_agrees_with_python():
    m = sensor_models  # the engines' compiled models, private callees included
    markov_step, saturate_quantise = m._markov_step, m._saturate_quantise
    specific_force = m._specific_force
    imu_reset, imu_sample = m.imu_reset, m.imu_sample
    isa_pressure, isa_altitude = m._isa_pressure, m._isa_altitude
    baro_reset, baro_sample = m.baro_reset, m.baro_sample
    mag_reset, mag_sample = m.mag_reset, m.mag_sample
    push, pop = m._push, m._pop
    gnss_reset, gnss_sample = m.gnss_reset, m.gnss_sample
    range_sample_truth = m.range_sample_truth

    quat = np.array(euler_to_quat(0.3, -0.2, 1.1))
    assert markov_step(0.5, 0.9, 0.2, -1.3) == noise.markov_step(0.5, 0.9, 0.2, -1.3)
    for value in (-300.0, -0.26, 0.0, 0.24, 1.7, 400.0):
        assert saturate_quantise(value, 250.0, 0.1) == noise.saturate_quantise(value, 250.0,
                                                                              0.1)
    for altitude in (-400.0, 0.0, 123.4, 11000.0):
        assert isa_pressure(altitude) == barometer.isa_pressure(altitude)
        pressure = barometer.isa_pressure(altitude)
        assert isa_altitude(pressure) == barometer.isa_altitude(pressure)

    state_py, state_nb = imu.zeros_state(), imu.zeros_state()
    normals = np.random.default_rng(1).standard_normal(imu.RESET_DRAWS)
    imu.reset(_coefficients("imu"), normals, state_py)
    imu_reset(_coefficients("imu"), normals, state_nb)
    assert np.array_equal(state_py, state_nb)

    rng = np.random.default_rng(2)
    _pair(imu.sample, imu_sample, [
        _coefficients("imu"), rng.standard_normal(3), quat, rng.standard_normal(3),
        rng.standard_normal(3), 9.81, np.zeros(imu.SAMPLE_DRAWS), state_py.copy(),
        np.zeros(3), np.zeros(3)], draws=6)
    out_py, out_nb = np.zeros(3), np.zeros(3)
    offset = np.array([0.1, 0.2, -0.3])
    imu.specific_force(np.ones(3), quat, np.ones(3), -np.ones(3), offset, 9.81, out_py)
    specific_force(np.ones(3), quat, np.ones(3), -np.ones(3), offset, 9.81, out_nb)
    assert np.array_equal(out_py, out_nb)

    state_py, state_nb = barometer.zeros_state(), barometer.zeros_state()
    barometer.reset(_coefficients("baro"), np.array([0.7]), state_py)
    baro_reset(_coefficients("baro"), np.array([0.7]), state_nb)
    assert np.array_equal(state_py, state_nb)
    _pair(barometer.sample, baro_sample, [
        _coefficients("baro"), 35.0, np.zeros(barometer.SAMPLE_DRAWS), state_py,
        np.zeros(2)], draws=2)

    state_py, state_nb = magnetometer.zeros_state(), magnetometer.zeros_state()
    magnetometer.reset(_coefficients("mag"), np.ones(3), state_py)
    mag_reset(_coefficients("mag"), np.ones(3), state_nb)
    assert np.array_equal(state_py, state_nb)
    _pair(magnetometer.sample, mag_sample, [
        _coefficients("mag"), quat, np.zeros(magnetometer.SAMPLE_DRAWS), state_py,
        np.zeros(3)], draws=2)

    # Through no fix, the latency, then fixes.
    _pair(gnss.sample, gnss_sample, [
        _coefficients("gnss"), np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3]),
        np.zeros(gnss.SAMPLE_DRAWS), np.zeros(gnss.STATE_SIZE), gnss.zeros_ring(2),
        np.zeros(3), np.zeros(3)], draws=3)
    pos_py, vel_py, pos_nb, vel_nb = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    ring_py, ring_nb = gnss.zeros_ring(1), gnss.zeros_ring(1)
    gnss.push(ring_py, 1, quat[:3].copy(), -quat[:3], True)
    push(ring_nb, 1, quat[:3].copy(), -quat[:3], True)
    assert np.array_equal(ring_py, ring_nb)
    assert gnss.pop(ring_py, 1, pos_py, vel_py) == pop(ring_nb, 1, pos_nb, vel_nb)
    assert np.array_equal(pos_py, pos_nb) and np.array_equal(vel_py, vel_nb)
    ring_py, ring_nb = gnss.zeros_ring(2) + 5.0, gnss.zeros_ring(2) + 5.0
    state_py, state_nb = np.ones(gnss.STATE_SIZE), np.ones(gnss.STATE_SIZE)
    gnss.reset(_coefficients("gnss"), np.array([1.0, -1.0, 0.5]), state_py, ring_py)
    gnss_reset(_coefficients("gnss"), np.array([1.0, -1.0, 0.5]), state_nb, ring_nb)
    assert np.array_equal(state_py, state_nb) and np.array_equal(ring_py, ring_nb)

    c = _coefficients("range")
    for z, q in ((2.0, quat), (20.0, quat), (0.1, quat), (3.0, np.array([1.0, 0, 0, 0]))):
        for normal in (-1.0, 0.0, 0.8):
            pos, normals = np.array([0.0, 0.0, z]), np.array([normal])
            # the batched engine's path: the floor's truth (z - floor_z) / R22 (inf when
            # the beam does not point down) sampled by the compiled sample_range gives the
            # plane model's reading to the bit
            r22 = 1.0 - 2.0 * (q[0] ** 2 + q[1] ** 2)
            truth = (z - 0.5) / r22 if r22 > 0.0 else math.inf
            expected = rangefinder.sample(c, pos, q, 0.5, normals)
            assert rangefinder.sample_range(c, truth, normals) == expected
            assert range_sample_truth(c, truth, normals) == expected
