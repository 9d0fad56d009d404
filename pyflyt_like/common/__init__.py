"""Code shared by the PyBullet core and the batched engine: validation, model files, models.

Nothing here imports pybullet or numba, so either engine can be used without the other.
"""
