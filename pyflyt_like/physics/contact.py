"""The floor's crash rule, shared by the batched engine (``BatchedAviary(crash_speed=...)``,
its floor stage) and the PyBullet twins of the batched tasks: reaching the floor faster than
``crash_speed`` downwards (or upside down) is a crash; touching an obstacle always is."""

#: The default ``crash_speed`` [m/s]: a landing gear takes about 1 m/s of sink rate.
CRASH_SPEED = 1.0
