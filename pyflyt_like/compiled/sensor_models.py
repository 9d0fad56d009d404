"""The sensor models of :mod:`pyflyt_like.sensors`, compiled: the per-sample functions both
engines run (the batched engine's sensor stage, :mod:`pyflyt_like.batch.sensors`, and the
PyBullet vehicles' onboard step, :mod:`.onboard`). Arguments as the plain functions'."""

from __future__ import annotations

from pyflyt_like.sensors import barometer, gnss, imu, magnetometer, noise, rangefinder, schedule

from . import rotations as r
from .jit import compile_shared

_markov_step = compile_shared(noise.markov_step)
_saturate_quantise = compile_shared(noise.saturate_quantise)
_specific_force = compile_shared(imu.specific_force, r.quat_to_matrix,
                                 r.transpose_times_vector, r.cross)
_measure = compile_shared(imu.measure, _saturate_quantise)
imu_reset = compile_shared(imu.reset)
imu_sample = compile_shared(imu.sample, _specific_force, _measure, r.transpose_times_vector)
_isa_temperature = compile_shared(barometer.isa_temperature)
_isa_pressure = compile_shared(barometer.isa_pressure, _isa_temperature)
_isa_altitude = compile_shared(barometer.isa_altitude)
baro_reset = compile_shared(barometer.reset)
baro_sample = compile_shared(barometer.sample, _isa_pressure, _isa_altitude, _markov_step)
mag_reset = compile_shared(magnetometer.reset)
mag_sample = compile_shared(magnetometer.sample, r.quat_to_matrix, r.transpose_times_vector)
_push = compile_shared(gnss.push)
_pop = compile_shared(gnss.pop)
gnss_reset = compile_shared(gnss.reset)
gnss_sample = compile_shared(gnss.sample, _markov_step, _push, _pop)
range_sample_truth = compile_shared(rangefinder.sample_range)
# inlined: a call would cost more than the countdown it runs (once per sensor, world, step)
sample_due = compile_shared(schedule.sample_due, inline=True)
