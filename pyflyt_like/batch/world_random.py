"""One random stream per world, drawn inside compiled loops.

A task that restarts worlds inside its fused step draws their new episodes there; numba's
own ``np.random`` keeps one state per thread, so what a world drew would depend on which
thread ran it. Here each world owns a 64-bit state (SplitMix64: Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014), so its draws depend only on
its seed and on how often it drew.

Two ways to turn the stream into standard normal draws: :func:`next_normals` (Box-Muller)
draws the tasks' episodes (their starts, observation noise: changing it would change every
measured episode), and :func:`next_ziggurat_normals` (Marsaglia and Tsang, "The ziggurat
method for generating random variables", J. Stat. Softw. 5(8), 2000; 256 layers) draws the
sensors' noise, a dozen normals per drone and physics step, where Box-Muller's logarithm,
square root and sine per pair cost three times the physics step; the ziggurat needs one
stream draw per normal but for 1.3 % of them, about 4.7 times faster.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_UNIT = 1.0 / 2.0**53


def world_streams(rng: np.random.Generator, n_worlds: int) -> np.ndarray:
    """(n_worlds,) uint64 stream states drawn from ``rng``."""
    return rng.integers(np.iinfo(np.uint64).max, size=n_worlds, dtype=np.uint64,
                        endpoint=True)


@njit(cache=True, _nrt=False, error_model="numpy")
def next_uniform(streams, w):
    """The next draw of world ``w``'s stream, uniform in [0, 1) with 53 random bits."""
    z = streams[w] + _GOLDEN
    streams[w] = z
    z = (z ^ (z >> _S30)) * _MIX_1
    z = (z ^ (z >> _S27)) * _MIX_2
    z = z ^ (z >> _S31)
    return float(z >> _S11) * _UNIT


@njit(cache=True, _nrt=False, error_model="numpy")
def next_normals(streams, w, out):
    """Standard normal draws into ``out`` (n,) from world ``w``'s stream (Box-Muller: two
    uniforms per pair of normals; an odd last entry uses a pair's first)."""
    n = out.shape[0]
    for i in range(0, n, 2):
        radius = math.sqrt(-2.0 * math.log(1.0 - next_uniform(streams, w)))  # 1 - u > 0
        angle = 2.0 * math.pi * next_uniform(streams, w)
        out[i] = radius * math.cos(angle)
        if i + 1 < n:
            out[i + 1] = radius * math.sin(angle)


_LAYERS = 256
_R = 3.6541528853610088  # where the tail starts: the 256-layer ziggurat's constants
_V = 4.92867323399e-3  # area of each layer (and of the base strip with the tail)


def _ziggurat_tables() -> tuple[np.ndarray, np.ndarray]:
    """(x, f) (257,): the layers' right edges x_0 > x_1 = R > ... > x_256 = 0 of the
    ziggurat under f(x) = exp(-x^2 / 2), and f at them; x_0 = V / f(R) is the base strip's
    width were its tail a rectangle."""
    x = np.zeros(_LAYERS + 1)
    x[0], x[1] = _V / math.exp(-0.5 * _R * _R), _R
    for i in range(1, _LAYERS - 1):
        x[i + 1] = math.sqrt(-2.0 * math.log(_V / x[i] + math.exp(-0.5 * x[i] * x[i])))
    x[_LAYERS] = 0.0
    return x, np.exp(-0.5 * x * x)


_ZIG_X, _ZIG_F = _ziggurat_tables()
_UNIT_44 = 1.0 / 2.0**44


@njit(cache=True, _nrt=False, error_model="numpy")
def next_ziggurat_normal(streams, w):
    """One standard normal draw from world ``w``'s stream (ziggurat): a stream draw's 53
    bits give the layer (8), the sign (1) and a uniform (44); inside the layer's rectangle
    under the curve (98.7 %) that is all, else the wedge is tested against the density or
    the tail beyond R drawn (Marsaglia's exponential method)."""
    while True:
        bits = np.int64(next_uniform(streams, w) * 9007199254740992.0)  # exact: 53 bits
        layer = bits & 255
        sign = 1.0 if (bits >> 8) & 1 else -1.0
        x = ((bits >> 9) * _UNIT_44) * _ZIG_X[layer]
        if x < _ZIG_X[layer + 1]:
            return sign * x
        if layer == 0:  # the tail beyond R
            while True:
                a = -math.log(1.0 - next_uniform(streams, w)) / _R
                b = -math.log(1.0 - next_uniform(streams, w))
                if b + b >= a * a:
                    return sign * (_R + a)
        y = _ZIG_F[layer + 1] + next_uniform(streams, w) * (_ZIG_F[layer]
                                                             - _ZIG_F[layer + 1])
        if y < math.exp(-0.5 * x * x):
            return sign * x


@njit(cache=True, _nrt=False, error_model="numpy")
def next_ziggurat_normals(streams, w, out):
    """Standard normal draws into ``out`` (n,) from world ``w``'s stream, by the ziggurat
    (:func:`next_ziggurat_normal`)."""
    for i in range(out.shape[0]):
        out[i] = next_ziggurat_normal(streams, w)
