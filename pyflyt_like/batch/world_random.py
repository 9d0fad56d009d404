"""One random stream per world, drawn inside compiled loops.

A task that restarts worlds inside its fused step draws their new episodes there; numba's
own ``np.random`` keeps one state per thread, so what a world drew would depend on which
thread ran it. Here each world owns a 64-bit state (SplitMix64: Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014), so its draws depend only on
its seed and on how often it drew.

Two ways to turn the stream into standard normal draws: :func:`next_normals` (Box-Muller)
draws the tasks' episodes (their starts, observation noise: changing it would change every
measured episode), and :func:`fill_ziggurat_normals` (Marsaglia and Tsang, "The ziggurat
method for generating random variables", J. Stat. Softw. 5(8), 2000; 256 layers) draws the
sensors' noise, several normals per drone and physics step, where Box-Muller's logarithm,
square root and sine per pair cost three times the physics step. The ziggurat takes 32
bits per normal, as Marsaglia and Tsang's own (8 for the layer, 1 for the sign, 23 for the
uniform within the layer, so a normal is a multiple of 2^-23 of its layer's width, 4e-7 at
most: far below any sensor's resolution; the layer's bits are not the uniform's, Doornik's
correction of the original), two normals per stream draw but for the 1.3 % outside their
layer's rectangle, which take a few more (53 bits each). About 1.8 ns per normal in the
batched engine's sensor stage (2-core Xeon), 3.6 ns when each took 53 bits and was decided
as it came.
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
# sign * x_layer at [256 * sign_bit + layer]: an accepted draw in one multiplication, without
# a branch on its sign
_ZIG_SIGNED_X = np.concatenate((-_ZIG_X[:_LAYERS], _ZIG_X[:_LAYERS]))
_UNIT_44 = 1.0 / 2.0**44
_UNIT_23 = 1.0 / 2.0**23
_LOW_32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _mix(z):
    """SplitMix64's output function of the state ``z`` (uint64)."""
    z = (z ^ (z >> _S30)) * _MIX_1
    z = (z ^ (z >> _S27)) * _MIX_2
    return z ^ (z >> _S31)


@njit(cache=True, _nrt=False, error_model="numpy")
def _outside_rectangle(streams, w, layer, sign, x):
    """The normal of a draw ``sign * x`` of ``layer`` that fell outside its layer's
    rectangle: the tail beyond R (Marsaglia's exponential method) for the base layer, else
    the wedge tested against the density with one more uniform; further uniforms from world
    ``w``'s stream. NaN when the wedge rejects the draw (the caller starts over)."""
    if layer == 0:  # the tail beyond R
        while True:
            a = -math.log(1.0 - next_uniform(streams, w)) / _R
            b = -math.log(1.0 - next_uniform(streams, w))
            if b + b >= a * a:
                return sign * (_R + a)
    y = _ZIG_F[layer + 1] + next_uniform(streams, w) * (_ZIG_F[layer] - _ZIG_F[layer + 1])
    if y < math.exp(-0.5 * x * x):
        return sign * x
    return math.nan


@njit(cache=True, _nrt=False, error_model="numpy")
def next_ziggurat_normal(streams, w):
    """One standard normal draw from world ``w``'s stream (ziggurat), a stream draw's 53
    bits giving the layer (8), the sign (1) and a uniform (44); inside the layer's
    rectangle under the curve (98.7 %) that is all, else the wedge or the tail
    (:func:`_outside_rectangle`), a rejected wedge starting over."""
    while True:
        z = streams[w] + _GOLDEN
        streams[w] = z
        bits = np.int64(_mix(z) >> _S11)
        layer = bits & 255
        sign = 1.0 if (bits >> 8) & 1 else -1.0
        x = ((bits >> 9) * _UNIT_44) * _ZIG_X[layer]
        if x < _ZIG_X[layer + 1]:
            return sign * x
        value = _outside_rectangle(streams, w, layer, sign, x)
        if not math.isnan(value):
            return value


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _in_rectangle(half):
    """The normal of 32 random bits ``half`` (int64) as if inside its layer's rectangle,
    and whether it is outside (then :func:`_outside_rectangle` decides)."""
    u = (half >> 9) * _UNIT_23
    return u * _ZIG_SIGNED_X[half & 511], u * _ZIG_X[half & 255] >= _ZIG_X[(half & 255) + 1]


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _half_draw(bits, i):
    """The 32 bits of a stream draw (uint64 ``bits``) that entry ``i`` takes: the low half
    for an even entry, the high half for an odd one (int64)."""
    return np.int64(bits >> _S32) if i & 1 else np.int64(bits & _LOW_32)


@njit(cache=True, _nrt=False, error_model="numpy")
def _finish_outside(streams, w, out, start):
    """The second pass of :func:`fill_ziggurat_normals`: the entries of ``out`` whose 32
    bits (recomputed from the stream's state ``start`` before the first pass: SplitMix64's
    draw j is the output function of ``start + j * golden``) fell outside their layer's
    rectangle, finished in order by :func:`_outside_rectangle` with further draws of the
    stream (a rejected wedge: a new :func:`next_ziggurat_normal`)."""
    z = start
    bits = np.uint64(0)
    for i in range(out.shape[0]):
        if i & 1 == 0:
            z += _GOLDEN
            bits = _mix(z)
        half = _half_draw(bits, i)
        layer = half & 255
        x = ((half >> 9) * _UNIT_23) * _ZIG_X[layer]
        if x >= _ZIG_X[layer + 1]:
            value = _outside_rectangle(streams, w, layer, 1.0 if (half >> 8) & 1 else -1.0, x)
            out[i] = next_ziggurat_normal(streams, w) if math.isnan(value) else value


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def fill_ziggurat_normals(streams, w, out, count):
    """Standard normal draws into ``out[:count]`` (``count <= out.shape[0]``, unchecked)
    from world ``w``'s stream, by the ziggurat on 32 bits per normal (module docstring), in
    two passes; inlined into its callers, where a literal ``count`` lets the compiler
    unroll the first pass (the IMU's draws 30 % faster in the sensor stage).

    The first pass takes one stream draw per two entries (the even entry its low 32 bits,
    the odd one its high) and keeps each as inside its layer's rectangle, noting whether
    any was not: a loop without a branch or a call on the draws, which the CPU overlaps
    from draw to draw. Only then (1.3 % of the entries, 8 % of the calls for 6 entries) the
    second pass (:func:`_finish_outside`) finishes those outside. Every entry is an
    independent standard normal; the stream is consumed in a fixed order
    (``ceil(count / 2)`` draws, then the second pass's in entry order), so the draws depend
    on it alone.
    """
    start = streams[w]
    z = start
    outside = False
    for i in range(0, count - 1, 2):
        z += _GOLDEN
        bits = _mix(z)
        out[i], low_outside = _in_rectangle(_half_draw(bits, 0))
        out[i + 1], high_outside = _in_rectangle(_half_draw(bits, 1))
        outside |= low_outside | high_outside
    if count & 1:  # the last entry: a draw's low half (its high half unused)
        z += _GOLDEN
        out[count - 1], last_outside = _in_rectangle(_half_draw(_mix(z), 0))
        outside |= last_outside
    streams[w] = z
    if outside:
        _finish_outside(streams, w, out[0:count], start)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def next_ziggurat_normals(streams, w, out):
    """Standard normal draws into every entry of ``out`` (n,) from world ``w``'s stream:
    :func:`fill_ziggurat_normals` of ``n``."""
    fill_ziggurat_normals(streams, w, out, out.shape[0])
