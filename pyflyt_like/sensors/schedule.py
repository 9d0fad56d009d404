"""When a sensor samples: the one schedule of every engine.

A sensor of sample period ``p`` physics steps (``p = physics_hz / update_rate``; 0: not
sampled) samples the reset state (step 0) and the state after every physics step ``k``
with ``k % p == 0``. Each engine tells it by a countdown rather than an integer division
per sensor, drone and step: ``countdown[s]`` is the number of calls until sensor ``s``
samples again, restarted at each sample, and the caller calls :func:`sample_due` once at
the reset (``at_reset``) and once after every physics step.

Plain Python on arrays and numbers (no allocation): the batched engine and the PyBullet
vehicles' compiled onboard step compile it as it is
(:func:`pyflyt_like.compiled.jit.compile_shared`); :class:`~pyflyt_like.sensors.SensorSuite`
and the PyBullet ray sensors call it from Python.
"""

from __future__ import annotations


def sample_due(periods, countdown, sensor, at_reset):
    """Whether ``sensor`` (an index of ``periods``, each [physics steps], 0: not sampled)
    samples at this call: at a reset (``at_reset``) or when its ``countdown`` (float array,
    updated in place) runs out."""
    period = periods[sensor]
    if period == 0:
        return False
    if at_reset or countdown[sensor] <= 1.0:
        countdown[sensor] = period
        return True
    countdown[sensor] -= 1.0
    return False


def samples_within(periods, countdown, sensor, at_reset, calls):
    """How many times ``sensor`` samples in the next ``calls`` calls of
    :func:`sample_due` from the ``countdown`` as it stands (the first of them
    ``at_reset`` or not), without changing it: for drawing the random numbers of a block
    of steps ahead."""
    period = periods[sensor]
    if period == 0 or calls <= 0:
        return 0
    first = 0 if at_reset or countdown[sensor] <= 1.0 else int(countdown[sensor]) - 1
    if first >= calls:
        return 0
    return 1 + (calls - 1 - first) // period
