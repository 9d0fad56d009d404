"""The shared maths compiled by numba, for both engines.

The formulas live once, as plain Python, in the pure packages (:mod:`pyflyt_like.common`,
:mod:`~pyflyt_like.sensors`, :mod:`~pyflyt_like.estimation`, ...); this package compiles
them (:func:`.jit.compile_shared`) for the batched engine's kernels and for the PyBullet
vehicles' onboard step (sensors and the EKF in one call), and keeps the compiled machine
code in a per-user cache (:mod:`.kernel_cache`). It never imports pybullet.
"""

from .inliner import prune_none_arguments, share_scope_copies
from .kernel_cache import register_cache_locator

register_cache_locator()  # before any kernel is decorated: their caches go to its folder
# before any kernel compiles: numba's inliner copies less and inlines no pruned branch
share_scope_copies()
prune_none_arguments()
