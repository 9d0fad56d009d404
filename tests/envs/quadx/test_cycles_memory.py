"""Making, resetting, stepping and closing envs over and over keeps the memory flat.

What looked like a leak was glibc's allocator: a closed PyBullet world (~28 MB for
QuadX-Hover) is freed, but the heap keeps its pages whenever a live allocation sits above
them, so RSS read straight after ``close()`` jumps by one world at some cycles and stays
there (+28 MB after 100 Hover cycles in one run, flat in another; Gates alike).
``malloc_trim(0)`` hands the free pages back; what RSS then shows is what is still in use,
and that stays flat: at most 0.3 kB per cycle over 300 cycles each of QuadX-Hover,
QuadX-Gates, the Multirotor-Hover and Fixedwing-Reach twins, the dogfight scene and the
three vector tasks, every PyBullet client disconnected and Python's own allocations
(tracemalloc) flat.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys

import gymnasium
import pytest

import pyflyt_like.envs  # noqa: F401  (registers the ids)

ENV_IDS = ("pyflyt_like/QuadX-Hover-v0", "pyflyt_like/QuadX-Gates-v0")
CYCLES = 1000  # each: one env made, reset, stepped 5 times and closed, the two in turn (~30 s)
WARM_UP = 200  # cycles before the baseline: lazily loaded kernels, caches, the allocator
CHECKS = 4  # RSS readings over the last CYCLES - WARM_UP cycles
#: Largest growth allowed over the last 800 cycles [bytes]; measured: under 0.05 MiB. A
#: leak of 5 kB per cycle (a sixth of a percent of one PyBullet world) fails it: 800
#: float64 kept per cycle grew 5.1 MiB.
MAX_GROWTH = 4 * 2**20


def _libc():
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def _rss_in_use(libc) -> int:
    """Resident memory [bytes] after garbage collection and giving free heap pages back."""
    gc.collect()
    libc.malloc_trim(0)
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _cycle(seed: int) -> None:
    env = gymnasium.make(ENV_IDS[seed % len(ENV_IDS)])
    env.reset(seed=seed)
    for _ in range(5):
        env.step(env.action_space.sample())
    env.close()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or _libc() is None,
                    reason="reads /proc/self/statm and glibc's malloc_trim")
def test_a_thousand_make_reset_step_close_cycles_keep_the_memory_flat():
    libc = _libc()
    for seed in range(WARM_UP):
        _cycle(seed)
    baseline = _rss_in_use(libc)
    readings = []
    per_check = (CYCLES - WARM_UP) // CHECKS
    for check in range(CHECKS):
        for seed in range(per_check):
            _cycle(WARM_UP + check * per_check + seed)
        readings.append(_rss_in_use(libc))
    # the largest reading: a leak raises every later one, so no single low one can hide it
    growth = max(readings) - baseline
    assert growth < MAX_GROWTH, (
        f"RSS grew {growth / 2**20:.1f} MiB over {CYCLES - WARM_UP} cycles; readings "
        f"{[round((r - baseline) / 2**20, 2) for r in readings]} MiB above the baseline")
