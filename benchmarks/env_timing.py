"""Timing helpers of the env benchmarks: time inside ``Aviary.step()``, reset cost."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def time_inside_aviary_step(aviary) -> Iterator[list[float]]:
    """Wrap ``aviary.step`` for the block; the yielded one-item list accumulates its seconds.

    Timing the calls on the run itself means both figures of a ratio come from the same
    trajectory, resets and contacts included.
    """
    inner = aviary.step
    spent = [0.0]

    def timed_step() -> None:
        begin = time.perf_counter()
        inner()
        spent[0] += time.perf_counter() - begin

    aviary.step = timed_step
    try:
        yield spent
    finally:
        del aviary.step


def reset_milliseconds(env, resets: int = 200) -> float:
    """Median wall time of one ``env.reset()`` [ms] (any Gymnasium or PettingZoo env)."""
    times = []
    for _ in range(resets):
        start = time.perf_counter()
        env.reset()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)
