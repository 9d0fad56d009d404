"""One random stream per world, drawn inside compiled loops.

A task that restarts worlds inside its fused step draws their new episodes there; numba's
own ``np.random`` keeps one state per thread, so what a world drew would depend on which
thread ran it. Here each world owns a 64-bit state (SplitMix64: Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014), so its draws depend only on
its seed and on how often it drew.
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
