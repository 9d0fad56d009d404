"""Motor lag with separate rise and fall time constants, for both engines.

A propeller motor speeds up under the driver's torque but, on an ESC without active
braking, slows down only under the propeller's aerodynamic drag: its fall time constant is
longer than its rise time constant (a factor of about two to four is common on small
multirotors). Each physics step of length ``dt`` moves the speed ``s`` toward the command
``c`` by the exact step response of a first-order lag,

    ``s <- s + (1 - exp(-dt / tau)) (c - s)``,

with ``tau = tau_rise`` while the command's magnitude exceeds the speed's (spinning up) and
``tau = tau_fall`` otherwise (spinning down, or holding). Equal constants give the usual
symmetric lag. Plain Python on floats: the PyBullet ``Motors`` call it, the batched engine
compiles it.
"""

from __future__ import annotations

import math


def lag_gain(dt: float, tau: float) -> float:
    """The step's gain ``1 - exp(-dt / tau)`` for a time constant ``tau`` [s] >= 0 and a step
    ``dt`` [s] > 0; ``tau = 0`` (no lag) gives 1."""
    if tau <= 0.0:
        return 1.0
    return -math.expm1(-dt / tau)


def lag_step(speed: float, command: float, gain_rise: float, gain_fall: float) -> float:
    """The speed (any unit: throttle, RPM, rad/s) one step on toward ``command``, with the
    rise gain while ``|command| > |speed|`` and the fall gain otherwise (:func:`lag_gain`)."""
    gain = gain_rise if abs(command) > abs(speed) else gain_fall
    return speed + gain * (command - speed)
