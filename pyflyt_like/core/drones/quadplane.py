"""QuadPlane: a fixed-wing with four lift motors, for vertical take-off and wing-borne cruise."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pyflyt_like.common.angles import wrap_angle
from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.control.quadx_cascade import QuadXCascade

from ..abstractions.motors import Motors
from .fixedwing import ALTITUDE_HOLD, CLIMB_RATE_HOLD, SURFACE_COMMANDS, Fixedwing

LIFT_MOTORS = 4
HOVER, TRANSITION = FlightMode.POSITION, FlightMode.TRANSITION


class QuadPlane(Fixedwing):
    """A quadplane: the :class:`Fixedwing` airframe plus four lift motors (PX4 Quad-X order).

    Modes:
        -1: raw (10,): the five surface commands, forward-motor throttle, four lift throttles.
        0, 1, 2, 3: wing-borne flight as :class:`Fixedwing` (lift motors stopped): surfaces,
           attitude hold, and the autopilot's altitude/airspeed/heading and
           bank/airspeed/climb-rate holds.
        7: hover on the lift motors: [x, y, yaw, z] as QuadX mode 7; forward motor off.
        8: transition: [forward throttle 0..1, pitch rad, yaw rad, z m]; the lift motors (and
           the surfaces, by attitude hold, as the airspeed makes them bite) hold the
           wings level (but for the autopilot's bank toward the heading, which fades with
           the speed, and a lean ``drift_kp`` · body v into sideways drift; within
           ``drift_roll_limit``), the pitch, the heading and the altitude (QuadX mode 3) while the
           forward motor accelerates the aircraft. As the wing takes the weight the altitude
           loop winds the lift motors down by itself; once ``transition_complete`` (airspeed
           above the YAML's ``transition_airspeed``) switch to a wing-borne mode.

    :meth:`transition_to` flies either transition by itself: ``"cruise"`` from hover to
    mode 2, ``"hover"`` (the back-transition: forward motor off, nose up, the lift motors
    holding altitude while the aircraft brakes) from wing-borne flight to mode 7.

    ``aux_state`` (10,): surface deflections [rad] (5), forward throttle, lift throttles (4).
    Takes the :class:`Fixedwing` options; spawns at rest by default.
    """

    modes = tuple(int(m) for m in (FlightMode.ACTUATORS, FlightMode.RATES,
                                   FlightMode.ATTITUDE, ALTITUDE_HOLD, CLIMB_RATE_HOLD,
                                   HOVER, TRANSITION))

    def __init__(self, p, start_pos, start_orn, control_hz: int | None = None,
                 physics_hz: int = DEFAULT_PHYSICS_HZ, drone_model: str = "quadplane",
                 model_dir: str | Path | None = None, np_random: np.random.Generator | None = None,
                 starting_velocity=None, **onboard_options):
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random, starting_velocity, **onboard_options)
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
        transition = self.params["transition"]
        self.transition_airspeed = float(transition["cruise_airspeed"])
        self.hover_airspeed = float(transition["hover_airspeed"])
        self._transition_throttle = float(transition["throttle"])
        self._transition_pitch = float(transition["pitch"])
        self._back_transition_pitch = float(transition["back_pitch"])
        self._drift_kp = float(transition["drift_kp"])
        self._heading_kp = float(transition["heading_kp"])
        self._brake_altitude_kp = float(transition["brake_altitude_kp"])
        self._drift_limit = float(transition["drift_roll_limit"])
        self.transition_target: str | None = None
        self.lift_command = np.zeros(LIFT_MOTORS)
        self.aux_state = np.zeros(SURFACE_COMMANDS + 1 + LIFT_MOTORS)
        self.update_state()
        self.set_mode(HOVER)

    @property
    def transition_complete(self) -> bool:
        """True once the airspeed exceeds ``transition_airspeed`` (the wing can take over)."""
        return self.airspeed >= self.transition_airspeed

    def transition_to(self, target: str) -> None:
        """Fly a transition by itself, at the current altitude and heading.

        ``"cruise"``: mode 8 at the YAML's transition throttle and pitch until
        ``transition_complete``, then mode 2 holding that heading and altitude at the trim
        airspeed. ``"hover"``: mode 8 with the forward motor off while drag brakes; the pitch
        follows the level-flight pitch of the falling airspeed (so the wing keeps carrying
        its share without ballooning) down to the nose-up limit ``back_pitch``, and the lift
        motors hold that attitude and the altitude. Below ``hover_airspeed``: mode 7,
        holding the position reached. ``transition_target`` is the target until the hand-over,
        then None; :meth:`set_mode` cancels it.

        Raises:
            ValueError: ``target`` is not ``"cruise"`` or ``"hover"``.
        """
        if target not in ("cruise", "hover"):
            raise ValueError(f"target must be 'cruise' or 'hover', got {target!r}")
        if self.autopilot is None:
            raise ValueError(f"transition_to needs the autopilot: model {self.drone_model!r} "
                             "has no trim and autopilot sections in its YAML")
        heading = self.autopilot.course(self.rotation_matrix, self.world_velocity)
        altitude = float(self.state[3][2])
        self.set_mode(TRANSITION)
        if target == "cruise":
            self.setpoint = np.array((self._transition_throttle, self._transition_pitch,
                                      heading, altitude))
        else:
            self.setpoint = np.array((0.0, self._back_transition_pitch, heading, altitude))
        self.transition_target = target

    def set_mode(self, mode: int) -> None:
        """As :meth:`Fixedwing.set_mode`; also cancels a :meth:`transition_to` under way."""
        self.transition_target = None
        super().set_mode(mode)

    def _hand_over(self) -> None:
        """Steer a :meth:`transition_to`, and end it once its target can take over."""
        _, _, heading, altitude = self.setpoint.tolist()
        if self.transition_target == "hover":
            # Level-flight pitch of the falling airspeed, nosed down when above the altitude
            # or climbing (the lift motors can only push up).
            level = self.autopilot.tecs.level_pitch(self.airspeed)
            climb = float(self.world_velocity[2])
            pitch = level + self._brake_altitude_kp * (float(self.state[3][2]) - altitude
                                                       + climb)
            self.setpoint[1] = min(max(pitch, self._back_transition_pitch),
                                   self.autopilot.tecs.pitch_max)
        if self.transition_target == "cruise" and self.transition_complete:
            self.set_mode(ALTITUDE_HOLD)
            self.setpoint = np.array((heading, self.autopilot.tecs.trim_airspeed, 0.0,
                                      altitude))
        elif self.transition_target == "hover" and self.airspeed < self.hover_airspeed:
            x, y, _ = self.state[3]
            self.set_mode(HOVER)
            self.setpoint = np.array((x, y, float(self.state[1][2]), altitude))

    def setpoint_size_of(self, mode: int) -> int:
        return SURFACE_COMMANDS + 1 + LIFT_MOTORS if mode == FlightMode.ACTUATORS else 4

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
        if self.transition_target is not None:
            self._hand_over()
            mode, setpoint = self.mode, self.setpoint
        if mode == FlightMode.ACTUATORS:
            super().control(-1, setpoint[:SURFACE_COMMANDS + 1])
            self.lift_command[:] = setpoint[SURFACE_COMMANDS + 1:]
        elif mode == HOVER:
            self.surface_command[:] = 0.0
            self.thrust_command[0] = 0.0
            self.lift_command[:] = self.lift_cascade.step(7, setpoint, self.state,
                                                          self.world_velocity)
        elif mode == TRANSITION:
            throttle, pitch, yaw, z = setpoint.tolist()
            # Wings level but for two gentle corrections, so the transition flies a straight
            # line: the bank that turns the course to the heading (it fades with the speed),
            # and a lean into any sideways drift (body v > 0 is drifting left: a right roll
            # pushes it back).
            roll = self._drift_kp * float(self.state[2][1])
            if self.autopilot is not None:
                roll += self.autopilot.bank_for_heading(yaw, self.airspeed, self.rotation_matrix,
                                                        self.world_velocity)
            roll = min(max(roll, -self._drift_limit), self._drift_limit)
            # The surfaces hold the same attitude: they take over from the lift motors as
            # the airspeed grows (and keep the nose from pitching up as the lift motors idle).
            # The rudder turns the nose to the heading too (the lift motors' yaw torque is
            # weak at speed): a yaw rate proportional to the heading error.
            yaw_rate = self._heading_kp * wrap_angle(yaw - float(self.state[1][2]))
            self.surface_command[:] = self.mixer @ np.array(self.attitude.step(
                np.array((roll, pitch, yaw_rate, 0.0)), self.state, self.rotation_matrix))
            self.thrust_command[0] = min(max(throttle, 0.0), 1.0)
            self.lift_command[:] = self.lift_cascade.step(
                3, np.array((roll, pitch, yaw, z)), self.state, self.world_velocity)
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
