"""``gust``: a discrete "1 - cosine" gust (the MIL-F-8785C discrete gust shape) in time."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..abstractions.base_wind_field import WindFieldClass
from ._options import as_vector3, check_finite, check_positive_float, reject_unknown_options


class DiscreteGustWind(WindFieldClass):
    """One 1 - cos gust on top of a steady base wind, uniform in space.

    For ``start_time <= t <= start_time + duration``::

        u(t) = base_velocity + amplitude / 2 * (1 - cos(2 pi (t - start_time) / duration))

    and ``u(t) = base_velocity`` otherwise. The gust rises smoothly from the base wind to
    ``base_velocity + amplitude`` at mid-gust and back, with zero slope at both ends. The
    standard's gust is a function of distance flown; here it is a function of time, i.e. the
    gust length is ``duration`` times the airspeed of the vehicle meeting it.

    Args:
        np_random: the aviary's random generator (unused: the field is deterministic).
        amplitude: (3,) peak gust velocity added to the base wind [m/s], ground frame (ENU).
        start_time: time the gust starts [s] (the aviary's time starts at 0 on reset).
        duration: length of the gust [s], > 0.
        base_velocity: (3,) steady wind before and after the gust [m/s]; default zero.

    Raises:
        ValueError: a vector not of shape (3,) or not finite; ``duration <= 0``; a
            non-finite ``start_time``; an unknown option.
        TypeError: a non-numeric option.
    """

    wind_name = "gust"

    def __init__(self, np_random: np.random.Generator, *,
                 amplitude: Sequence[float] | np.ndarray,
                 start_time: float,
                 duration: float,
                 base_velocity: Sequence[float] | np.ndarray = (0.0, 0.0, 0.0),
                 **unknown):
        reject_unknown_options(DiscreteGustWind, unknown)
        super().__init__(np_random)
        self.amplitude = as_vector3("amplitude", amplitude)
        self.start_time = check_finite("start_time", start_time)
        self.duration = check_positive_float("duration", duration)
        self.base_velocity = as_vector3("base_velocity", base_velocity)
        self.end_time = self.start_time + self.duration
        # Constants for __call__: Python floats are cheaper than numpy scalars per call.
        self._omega = 2.0 * math.pi / self.duration  # rad/s
        self._base = tuple(self.base_velocity.tolist())
        self._half_amplitude = tuple((0.5 * self.amplitude).tolist())
        self._base_row = self.base_velocity.reshape(1, 3).copy()
        self._row = np.zeros((1, 3))  # scratch for the in-gust value

    def __call__(self, time: float, position: np.ndarray) -> np.ndarray:
        """Return the (n, 3) wind [m/s] at (n, 3) positions [m] (a new array each call)."""
        if self.start_time <= time <= self.end_time:
            shape = 1.0 - math.cos(self._omega * (time - self.start_time))
            bx, by, bz = self._base
            ax, ay, az = self._half_amplitude
            self._row[0] = (bx + ax * shape, by + ay * shape, bz + az * shape)
            return self._row.repeat(len(position), axis=0)
        return self._base_row.repeat(len(position), axis=0)
