"""When the env layer's compiled loops over worlds run on several threads.

numba's OpenMP threading layer aborts a forked child that launches a parallel kernel after
its parent launched one. The PyBullet twins must keep working in forked workers
(``AsyncVectorEnv``, process pools) of a process that trained on the batched engine, so
their loops (one world) run on the calling thread; the VectorEnv's loops over thousands
of worlds are split among threads, where that pays for the threads' start.
"""

from __future__ import annotations

PARALLEL_WORLDS = 1024  # from this many worlds a loop is split among the threads
BLOCKS = 64  # blocks of worlds handed to the threads


def over_worlds(rows, blocks_of_rows, n_worlds: int, *arrays) -> None:
    """Run a compiled loop over ``n_worlds``: ``rows(0, n_worlds, *arrays)`` on the calling
    thread, or from :data:`PARALLEL_WORLDS` worlds on ``blocks_of_rows(BLOCKS, *arrays)``,
    the parallel kernel that hands blocks of rows to ``rows`` on the threads."""
    if n_worlds >= PARALLEL_WORLDS:
        blocks_of_rows(BLOCKS, *arrays)
    else:
        rows(0, n_worlds, *arrays)
