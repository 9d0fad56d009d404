"""Fixed-wing attitude hold: roll and pitch angles plus yaw rate, flown by body-rate PIDs.

PyFlyt has no attitude hold for its fixed-wing; this is ours. Angle errors become body-rate
setpoints (proportional, clipped), and a PID per axis turns rate errors into the normalised
[roll, pitch, yaw] surface commands of mode 0. Gains come from the vehicle YAML
(``attitude_controller``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..abstractions.pid import PID


class FixedwingAttitude:
    """Attitude-hold controller of a fixed-wing.

    Args:
        gains: the YAML ``attitude_controller`` mapping: ``angle_kp`` (2,) [1/s],
            ``rate_limits`` (3,) [rad/s] and a ``rate`` PID section (kp, ki, kd, limits).
        period: control period [s].
    """

    def __init__(self, gains: dict[str, Any], period: float):
        self.angle_kp = [float(k) for k in gains["angle_kp"]]
        self.rate_limits = [float(k) for k in gains["rate_limits"]]
        rate = gains["rate"]
        self.rate = PID(rate["kp"], rate["ki"], rate["kd"], rate["limits"], period)

    def reset(self) -> None:
        """Clear the rate integrators."""
        self.rate.reset()

    def step(self, setpoint: np.ndarray, state: np.ndarray) -> list[float]:
        """Return [roll, pitch, yaw] commands in [-1, 1].

        Args:
            setpoint: (4,) roll [rad], pitch [rad], yaw rate [rad/s], throttle (unused here).
            state: (4, 3) drone state.
        """
        roll_setpoint, pitch_setpoint, yaw_rate, _ = setpoint.tolist()
        rates, angles = state[0].tolist(), state[1].tolist()
        (kr, kp), (lr, lp, ly) = self.angle_kp, self.rate_limits
        rate_setpoint = (min(max(kr * (roll_setpoint - angles[0]), -lr), lr),
                         min(max(kp * (pitch_setpoint - angles[1]), -lp), lp),
                         min(max(yaw_rate, -ly), ly))
        return self.rate.step_values(rates, rate_setpoint)
