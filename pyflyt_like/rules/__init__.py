"""The rules of the tasks that run on both engines: spawn, scoring, observation, reward and
endings, written once as plain Python loops over one world's arrays (no numpy allocation,
no pybullet, no numba). The PyBullet scenes call them compiled, as the batched tasks'
fused kernels do (``pyflyt_like.compiled.jit.compile_shared``)."""
