"""Running a compiled loop over worlds on one thread or several: the one way the engine and
the tasks spread their worlds over the cores.

Every fused kernel (the engine's ``run_worlds``, each task's step) is a serial loop over a
range of worlds ``first <= w < last``, compiled once with ``nogil=True``. A
:class:`WorldLoop` calls it over all the worlds: on the calling thread when the call holds
little work, else split into one contiguous block of worlds per thread, the blocks run at
once on a small pool of Python threads (the kernel releases the GIL).

Why not numba's ``parallel=True``: a ``prange`` kernel is a second compile of the whole
step (numba links the serial loop into it and optimises and generates machine code for it
again; about as long as the serial kernel's own compile), paid by every first use at
scale. The pool costs a wake-up per call (tens of microseconds), which is why a call
below :data:`PARALLEL_WORK` drone-steps runs on the calling thread. It also survives a
fork: a child process (``AsyncVectorEnv``, a process pool) makes its own threads, where
numba's OpenMP layer aborts a child that launches a parallel kernel after its parent did.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba

#: From this many drone-steps in one call (worlds x drones x physics steps) the worlds are
#: split among the threads: about a millisecond of work, against the pool's wake-up.
PARALLEL_WORK = 8192


def thread_count() -> int:
    """The threads a loop over worlds may use: numba's ``NUMBA_NUM_THREADS`` (the cores by
    default), read without starting numba's threading layer."""
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


class _Pool:
    """The process's worker threads (made on first need, again after a fork)."""

    executor: ThreadPoolExecutor | None = None
    workers = 0
    pid = -1

    @classmethod
    def get(cls, workers: int) -> ThreadPoolExecutor:
        if cls.executor is None or cls.pid != os.getpid() or cls.workers < workers:
            # a forked child inherits the executor but not its threads: make new ones
            cls.executor = ThreadPoolExecutor(max_workers=workers,
                                              thread_name_prefix="pyflyt_like-worlds")
            cls.workers, cls.pid = workers, os.getpid()
        return cls.executor


def blocks_of(n_worlds: int, n_blocks: int) -> list[tuple[int, int]]:
    """``n_blocks`` contiguous (first, last) ranges covering ``range(n_worlds)``, sizes
    differing by at most one."""
    return [(b * n_worlds // n_blocks, (b + 1) * n_worlds // n_blocks) for b in range(n_blocks)]


class WorldLoop:
    """A compiled loop ``kernel(*arguments, first, last)`` over ``n_worlds`` worlds, called
    as ``loop(*arguments)``.

    Args:
        kernel: the compiled entry (:func:`~pyflyt_like.compiled.jit.bound_entry` of a
            ``nogil`` kernel) taking the arguments, then ``first`` and ``last`` (ints).
        n_worlds: the worlds the loop covers.
        work_per_world: drone-steps per world and call (drones x physics steps); a
            callable of the arguments when it depends on them (the engine's ``n_steps``).
        combine: how the blocks' return values make the call's (``all`` for a kernel that
            returns False to refuse, e.g. a NaN action); None: the call returns None.
    """

    def __init__(self, kernel: Callable, n_worlds: int,
                 work_per_world: int | Callable[..., int] = 1,
                 combine: Callable | None = None):
        self.kernel = kernel
        self.n_worlds = n_worlds
        self.work_per_world = work_per_world
        self.combine = combine
        self.blocks = blocks_of(n_worlds, min(thread_count(), n_worlds))

    def parallel(self, *arguments) -> bool:
        """Whether a call with ``arguments`` is split among the threads."""
        work = self.work_per_world
        if callable(work):
            work = work(*arguments)
        return len(self.blocks) > 1 and self.n_worlds * work >= PARALLEL_WORK

    def __call__(self, *arguments):
        kernel = self.kernel
        if not self.parallel(*arguments):
            return kernel(*arguments, 0, self.n_worlds)
        pool = _Pool.get(len(self.blocks) - 1)
        futures = [pool.submit(kernel, *arguments, first, last)
                   for first, last in self.blocks[1:]]
        first, last = self.blocks[0]
        results = [kernel(*arguments, first, last)]  # the calling thread takes a block too
        results += [future.result() for future in futures]
        return None if self.combine is None else self.combine(results)
