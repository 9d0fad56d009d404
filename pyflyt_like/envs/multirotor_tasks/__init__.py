"""Multirotor tasks on the batched engine (VectorEnv) and on PyBullet (the twin Env).

One array-based implementation of each task (:mod:`.tasks`) and of the agent step
(:mod:`.episodes`) serves both engines (:mod:`.backends`). The task classes are listed by
name in :data:`pyflyt_like.envs.registry.MULTIROTOR_TASK_CLASSES`.
"""

# The modules here compile numba kernels with cache=True; pyflyt_like.batch sets up the
# kernel caches when imported, which must happen before the first kernel is decorated.
import pyflyt_like.batch  # noqa: F401
