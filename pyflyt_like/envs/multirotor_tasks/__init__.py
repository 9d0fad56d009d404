"""Multirotor tasks on the batched engine (VectorEnv) and on PyBullet (the twin Env).

The tasks' rules are written once (:mod:`pyflyt_like.rules.multirotor_tasks`) and compiled
(:mod:`.kernels`): into the VectorEnv's fused step, and called with one world by the twin.
"""

# The modules here compile numba kernels with cache=True; pyflyt_like.batch sets up the
# kernel caches when imported, which must happen before the first kernel is decorated.
import pyflyt_like.batch  # noqa: F401
