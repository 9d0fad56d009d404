r"""``dryden``: Dryden turbulence, MIL-F-8785C low-altitude model, on top of a mean wind.

Spectra (one-sided, temporal: the spatial spectra of the standard with ``Omega = omega / V``)::

    Phi_u(w) = sigma_u^2 * 2 L_u / (pi V) / (1 + (L_u w / V)^2)
    Phi_v(w) = sigma_v^2 * L_v / (pi V) * (1 + 3 (L_v w / V)^2) / (1 + (L_v w / V)^2)^2
    Phi_w(w) = the same as Phi_v with L_w, sigma_w

whose autocorrelations, with ``T = L / V`` [s], are::

    R_u(tau) = sigma_u^2 * exp(-|tau| / T_u)
    R_v(tau) = sigma_v^2 * (1 - |tau| / (2 T_v)) * exp(-|tau| / T_v)        (and R_w alike)

Low-altitude parameters (the standard writes them in feet; ``h_ft = altitude / 0.3048``)::

    L_u = L_v = h_ft / (0.177 + 0.000823 h_ft)^1.2  [ft],   L_w = h_ft  [ft]
    sigma_w = 0.1 * W20,   sigma_u = sigma_v = sigma_w / (0.177 + 0.000823 h_ft)^0.4

``W20`` is the wind speed at 20 ft; the sigmas have its unit (m/s here). The lengths are
converted back to metres. The model is meant for ``h <= 1000 ft`` (304.8 m).

Shaping filters (unit white noise in, turbulence out), ``T = L / V``::

    H_u(s) ~ 1 / (1 + T_u s)                     first order
    H_v(s) ~ (1 + sqrt(3) T_v s) / (1 + T_v s)^2   second order (and H_w alike)

Discretisation: each filter is a linear SDE ``dx = A x dt + B dW``, sampled exactly:
``x[k+1] = Phi x[k] + q[k]`` with ``Phi = expm(A Ts)`` and ``q[k] ~ N(0, Q)``,
``Q = integral_0^Ts expm(A t) B B^T expm(A^T t) dt``. The samples then have *exactly* the
autocorrelation above at ``tau = k Ts`` and variance ``sigma^2`` in steady state, for any
sample period (no small-``Ts`` approximation). With ``theta = Ts / T = V Ts / L`` and states
scaled to unit stationary covariance, the coefficients are closed-form:

* u (first order): ``x[k+1] = a x[k] + b n[k]``, ``a = exp(-theta)``,
  ``b = sqrt(1 - exp(-2 theta))``; output ``sigma_u x``.
* v, w (second order; controllable form of ``1 / (s + lambda)^2`` with
  ``lambda = 1 / T``, states ``x1``, ``x1'`` scaled by ``2 lambda^1.5``, ``2 lambda^0.5``)::

      Phi = exp(-theta) [[1 + theta, theta], [-theta, 1 - theta]]
      Q   = [[P3, x^2 e^-x / 2], [x^2 e^-x / 2, P3 + 2 x e^-x]],   x = 2 theta

  where ``P3 = 1 - e^-x (1 + x + x^2 / 2)`` is the regularised lower incomplete gamma
  function ``P(3, x)`` (taken from scipy, which evaluates it without cancellation at small
  ``x``). ``q = chol(Q) n`` and the output is ``sigma (x1 + sqrt(3) x2) / 2``, whose
  variance is ``sigma^2`` because ``Phi Phi^T + Q = I``.

``n`` are independent standard normal draws from the aviary's generator.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from pyflyt_like.common.dryden_filters import (
    MAX_ALTITUDE,
    first_order_coefficients,
    low_altitude_parameters,
    second_order_coefficients,
)

from ..abstractions.base_wind_field import WindFieldClass
from ._options import (
    as_vector3,
    check_non_negative_float,
    check_positive_float,
    reject_unknown_options,
)

NOISE_BLOCK = 1024  # physics steps of noise drawn at once (one draw per step costs more)
_SQRT3 = math.sqrt(3.0)


class DrydenWind(WindFieldClass):
    """Mean wind plus Dryden turbulence (MIL-F-8785C, low altitude), spatially uniform.

    The turbulence is generated in time by the shaping filters of the module docstring,
    sampled exactly at ``sample_period``; the spatial spectra become temporal ones through
    the airspeed ``V`` (Taylor's frozen-turbulence hypothesis: the vehicle flies through a
    frozen field at ``V``). Frozen-field approximation: at a given time the same turbulence
    is returned for every position, so several drones feel the same gust at the same time,
    which holds while they are close compared with the scale lengths (``L_w = altitude``).
    ``altitude`` and ``airspeed`` are fixed parameters, not read from the drones.

    Axes: u is along the horizontal direction of ``mean_velocity`` (along +x if the mean
    wind has no horizontal part), v is horizontal and 90 deg to its left, w is up (+z).
    The output, ground frame (ENU), is ``mean_velocity + u e_u + v e_v + w e_z``.

    Time: the filter advances one sample each time the field is called with a new, larger
    time; calls with the same time (several drones in one physics step) return the same
    value. The first call after construction or :meth:`reset` draws the state from the
    stationary distribution, so the turbulence has its full intensity from the start. Time
    going backwards without a :meth:`reset` raises ``ValueError``; a time step that differs
    from ``sample_period`` warns once (``RuntimeWarning``), since the spectra would then be
    stretched by the ratio.

    Determinism: the only randomness is standard normal noise from ``np_random``, drawn in
    blocks of ``NOISE_BLOCK`` samples when first needed; :meth:`reset` drops the unused
    noise and the state. The same generator state and the same call times give the same
    turbulence.

    Args:
        np_random: the aviary's random generator (a ``numpy.random.Generator``).
        mean_velocity: (3,) mean wind [m/s], ground frame; default zero.
        wind_speed_20ft: ``W20``, wind speed at 20 ft (6.1 m) [m/s], >= 0; default 5.
            Sets the intensities (``sigma_w = 0.1 W20``); it is not added to the mean wind.
        airspeed: ``V`` [m/s], > 0, converts spatial to temporal frequency; default 10.
        altitude: ``h`` [m], in (0, 304.8]; sets the scale lengths and intensities;
            default 10.
        sample_period: ``Ts`` [s], > 0; default 1/240. It must equal the aviary's physics
            period (``1 / physics_hz``) for the turbulence to have the specified spectra.

    Attributes:
        sigma: (3,) ``sigma_u, sigma_v, sigma_w`` [m/s].
        scale_lengths: (3,) ``L_u, L_v, L_w`` [m].
        time_constants: (3,) ``L / V`` [s].
        axes: (3, 3) unit vectors of u, v, w in the ground frame (rows).

    Raises:
        ValueError: a bad vector shape; a non-finite or out-of-range number; an unknown
            option.
        TypeError: a non-numeric option; ``np_random`` not a ``numpy.random.Generator``.
    """

    wind_name = "dryden"

    def __init__(self, np_random: np.random.Generator, *,
                 mean_velocity: Sequence[float] | np.ndarray = (0.0, 0.0, 0.0),
                 wind_speed_20ft: float = 5.0,
                 airspeed: float = 10.0,
                 altitude: float = 10.0,
                 sample_period: float = 1.0 / 240.0,
                 **unknown):
        reject_unknown_options(DrydenWind, unknown)
        if not isinstance(np_random, np.random.Generator):
            raise TypeError(f"np_random must be a numpy.random.Generator, got {np_random!r}")
        super().__init__(np_random)
        self.mean_velocity = as_vector3("mean_velocity", mean_velocity)
        self.wind_speed_20ft = check_non_negative_float("wind_speed_20ft", wind_speed_20ft)
        self.airspeed = check_positive_float("airspeed", airspeed)
        self.altitude = check_positive_float("altitude", altitude)
        if self.altitude > MAX_ALTITUDE:
            raise ValueError(f"altitude must be in (0, {MAX_ALTITUDE:.1f}] m (the MIL-F-8785C "
                             f"low-altitude model covers up to 1000 ft), got {altitude!r}")
        self.sample_period = check_positive_float("sample_period", sample_period)

        self.sigma, self.scale_lengths = low_altitude_parameters(self.altitude,
                                                                 self.wind_speed_20ft)
        self.time_constants = self.scale_lengths / self.airspeed
        mx, my, mz = self.mean_velocity.tolist()
        horizontal = math.hypot(mx, my)
        cx, cy = (mx / horizontal, my / horizontal) if horizontal > 0.0 else (1.0, 0.0)
        self.axes = np.array([[cx, cy, 0.0], [0.0 - cy, cx, 0.0], [0.0, 0.0, 1.0]])

        # Per-sample constants, as Python floats (cheaper than numpy scalars in __call__).
        theta_u, theta_v, theta_w = (self.sample_period / self.time_constants).tolist()
        self._a_u, self._b_u = first_order_coefficients(theta_u)
        phi_v, chol_v = second_order_coefficients(theta_v)
        phi_w, chol_w = second_order_coefficients(theta_w)
        self._phi_v = tuple(phi_v.ravel().tolist())
        self._chol_v = (chol_v[0, 0], chol_v[1, 0], chol_v[1, 1])
        self._phi_w = tuple(phi_w.ravel().tolist())
        self._chol_w = (chol_w[0, 0], chol_w[1, 0], chol_w[1, 1])
        su, sv, sw = self.sigma.tolist()
        self._out_scale = (su, 0.5 * sv, 0.5 * sw)
        self._mean = (mx, my, mz)
        self._cos, self._sin = cx, cy
        self._warned_period = False
        self._row = np.zeros((1, 3))
        self.reset()

    def reset(self) -> None:
        """Forget the filter state and unused noise; the next call starts a new realisation."""
        self._time: float | None = None
        self._state = [0.0] * 5  # u, v1, v2, w1, w2, scaled to unit variance
        self._noise: list[list[float]] = []
        self._noise_index = 0
        self._row[0] = self._mean

    def _next_noise(self) -> list[float]:
        if self._noise_index == len(self._noise):
            self._noise = self.np_random.standard_normal((NOISE_BLOCK, 5)).tolist()
            self._noise_index = 0
        self._noise_index += 1
        return self._noise[self._noise_index - 1]

    def _advance(self, time: float) -> None:
        """Move the filters to ``time`` [s] (one sample) and update the output row."""
        n0, n1, n2, n3, n4 = self._next_noise()
        if self._time is None:  # a stationary start: unit-variance, independent states
            u, v1, v2, w1, w2 = n0, n1, n2, n3, n4
        else:
            if time < self._time:
                raise ValueError(f"time went back from {self._time} s to {time} s; call "
                                 "reset() to restart the turbulence")
            if not self._warned_period and abs(time - self._time - self.sample_period) \
                    > 1e-6 * self.sample_period:
                self._warned_period = True
                warnings.warn(
                    f"dryden wind: time advanced by {time - self._time} s but sample_period "
                    f"is {self.sample_period} s; the spectra assume one call time per "
                    "sample_period (pass sample_period=aviary.physics_period)",
                    RuntimeWarning, stacklevel=3)
            u, v1, v2, w1, w2 = self._state
            f11, f12, f21, f22 = self._phi_v
            l11, l21, l22 = self._chol_v
            u = self._a_u * u + self._b_u * n0
            v1, v2 = (f11 * v1 + f12 * v2 + l11 * n1,
                      f21 * v1 + f22 * v2 + l21 * n1 + l22 * n2)
            f11, f12, f21, f22 = self._phi_w
            l11, l21, l22 = self._chol_w
            w1, w2 = (f11 * w1 + f12 * w2 + l11 * n3,
                      f21 * w1 + f22 * w2 + l21 * n3 + l22 * n4)
        self._state[:] = (u, v1, v2, w1, w2)
        self._time = time
        su, sv, sw = self._out_scale
        tu, tv, tw = su * u, sv * (v1 + _SQRT3 * v2), sw * (w1 + _SQRT3 * w2)
        mx, my, mz = self._mean
        self._row[0] = (mx + self._cos * tu - self._sin * tv,
                        my + self._sin * tu + self._cos * tv,
                        mz + tw)

    def __call__(self, time: float, position: np.ndarray) -> np.ndarray:
        """Return the (n, 3) wind [m/s] at time [s] for (n, 3) positions [m] (a new array).

        Every row is the same (frozen-field approximation); the filter advances when
        ``time`` is larger than at the previous call.
        """
        if time != self._time:
            self._advance(time)
        return self._row.repeat(len(position), axis=0)
