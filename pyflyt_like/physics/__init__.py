"""Physical formulas shared by both engines, written once: plain Python and numpy, no
pybullet and no numba. The PyBullet components call them; the batched engine compiles the
scalar ones with numba's ``njit``."""
