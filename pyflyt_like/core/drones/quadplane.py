"""QuadPlane: a fixed-wing with four lift motors, for vertical take-off and wing-borne cruise."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..abstractions.motors import Motors
from ..control.quadx_cascade import QuadXCascade
from .fixedwing import ALTITUDE_HOLD, CLIMB_RATE_HOLD, SURFACE_COMMANDS, Fixedwing

LIFT_MOTORS = 4
HOVER, TRANSITION = 7, 8


class QuadPlane(Fixedwing):
    """A quadplane: the :class:`Fixedwing` airframe plus four lift motors (PX4 Quad-X order).

    Modes:
        -1: raw (10,): the five surface commands, forward-motor throttle, four lift throttles.
        0, 1, 2, 3: wing-borne flight as :class:`Fixedwing` (lift motors stopped): surfaces,
           attitude hold, and the autopilot's altitude/airspeed/heading and
           bank/airspeed/climb-rate holds.
        7: hover on the lift motors: [x, y, yaw, z] as QuadX mode 7; forward motor off.
        8: transition: [forward throttle 0..1, pitch rad, yaw rad, z m]; the lift motors hold
           wings level, the pitch, the heading and the altitude (QuadX mode 3) while the
           forward motor accelerates the aircraft. As the wing takes the weight the altitude
           loop winds the lift motors down by itself; once ``transition_complete`` (airspeed
           above the YAML's ``transition_airspeed``) switch to a wing-borne mode.

    ``aux_state`` (10,): surface deflections [rad] (5), forward throttle, lift throttles (4).
    Takes the :class:`Fixedwing` options; spawns at rest by default.
    """

    modes = (-1, 0, 1, ALTITUDE_HOLD, CLIMB_RATE_HOLD, HOVER, TRANSITION)

    def __init__(self, p, start_pos, start_orn, control_hz: int | None = None,
                 physics_hz: int = 240, drone_model: str = "quadplane",
                 model_dir: str | Path | None = None, np_random: np.random.Generator | None = None,
                 starting_velocity=None, **camera_options):
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random, starting_velocity, **camera_options)
        lp = self.params["lift_motor_params"]
        max_rpm = np.sqrt(lp["total_thrust"] / (LIFT_MOTORS * lp["thrust_coef"]))
        self.lift_motors = Motors(
            p, self.physics_period, self.np_random, self.Id,
            [self.link_id(name) for name in lp["links"]], tau=np.full(LIFT_MOTORS, lp["tau"]),
            max_rpm=np.full(LIFT_MOTORS, max_rpm),
            thrust_coef=np.full(LIFT_MOTORS, lp["thrust_coef"]),
            torque_coef=lp["torque_coef"] * np.asarray(lp["torque_signs"], dtype=float),
            thrust_unit=np.tile(lp["thrust_unit"], (LIFT_MOTORS, 1)),
            noise_ratio=np.full(LIFT_MOTORS, lp["noise_ratio"]))
        self.lift_cascade = QuadXCascade(self.params["lift_controller"], self.params["lift_mixer"],
                                         self.control_period, self.mass, lp["total_thrust"],
                                         abs(getattr(p, "gravity", 9.81)))
        self.transition_airspeed = float(self.params["transition_airspeed"])
        self.lift_command = np.zeros(LIFT_MOTORS)
        self.aux_state = np.zeros(SURFACE_COMMANDS + 1 + LIFT_MOTORS)
        self.update_state()
        self.set_mode(HOVER)

    @property
    def transition_complete(self) -> bool:
        """True once the airspeed exceeds ``transition_airspeed`` (the wing can take over)."""
        return float(np.linalg.norm(self.air_velocity())) >= self.transition_airspeed

    def setpoint_size_of(self, mode: int) -> int:
        return SURFACE_COMMANDS + 1 + LIFT_MOTORS if mode == -1 else 4

    def reset_components(self) -> None:
        super().reset_components()
        if hasattr(self, "lift_motors"):  # Fixedwing's constructor resets before they exist
            self.lift_motors.reset()
            self.lift_command[:] = 0.0

    def reset_controllers(self) -> None:
        super().reset_controllers()
        if hasattr(self, "lift_cascade"):
            self.lift_cascade.reset()

    def preset_setpoint(self, mode: int) -> np.ndarray:
        x, y, z = self.state[3]
        roll, pitch, yaw = self.state[1]
        if mode == HOVER:
            return np.array((x, y, yaw, z))
        if mode == TRANSITION:
            return np.array((0.0, 0.0, yaw, z))
        return super().preset_setpoint(mode)

    def control(self, mode: int, setpoint: np.ndarray) -> None:
        if mode == -1:
            super().control(-1, setpoint[:SURFACE_COMMANDS + 1])
            self.lift_command[:] = setpoint[SURFACE_COMMANDS + 1:]
        elif mode == HOVER:
            self.surface_command[:] = 0.0
            self.thrust_command[0] = 0.0
            self.lift_command[:] = self.lift_cascade.step(7, setpoint, self.state,
                                                          self.world_velocity)
        elif mode == TRANSITION:
            throttle, pitch, yaw, z = setpoint.tolist()
            self.surface_command[:] = 0.0
            self.thrust_command[0] = min(max(throttle, 0.0), 1.0)
            self.lift_command[:] = self.lift_cascade.step(
                3, np.array((0.0, pitch, yaw, z)), self.state, self.world_velocity)
        else:
            super().control(mode, setpoint)
            self.lift_command[:] = 0.0

    def update_physics(self) -> None:
        super().update_physics()
        self.lift_motors.physics_update(self.lift_command)

    def update_state(self) -> None:
        super().update_state()
        if hasattr(self, "lift_motors"):
            self.aux_state[SURFACE_COMMANDS + 1:] = self.lift_motors.throttle
