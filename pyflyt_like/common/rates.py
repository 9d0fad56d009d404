"""The physics rates every engine and task starts from, in one place."""

#: The PyBullet Aviary's physics rate [Hz] when none is given (PyFlyt's), and so its
#: vehicles', the missions', the dogfight's and Fixedwing-Reach's.
DEFAULT_PHYSICS_HZ = 240
#: The fastest physics rate [Hz] a mission or a Multirotor task accepts: 10 kHz resolves a
#: rotor's ~10 ms response a hundred times over, and bounds the physics steps of one agent
#: step or mission second.
MAX_PHYSICS_HZ = 10_000
#: The batched multirotor engine's physics rate [Hz] when none is given, and the
#: Multirotor tasks': the controllers run at it, and 500 Hz holds a Crazyflie's attitude
#: loop.
BATCHED_MULTIROTOR_PHYSICS_HZ = 500
