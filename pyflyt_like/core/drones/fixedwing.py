"""Fixedwing: a conventional aeroplane flown by surface deflections, rates or attitude hold."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pybullet

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.rotations import transpose_times_vector
from pyflyt_like.common.validation import as_float_array
from pyflyt_like.control.fixedwing_attitude import FixedwingAttitude
from pyflyt_like.control.fixedwing_autopilot import FixedwingAutopilot
from pyflyt_like.physics.fixedwing_model import FIXEDWING_MODES, SURFACE_COMMANDS

from ..abstractions.boring_bodies import BoringBodies
from ..abstractions.lifting_surfaces import LiftingSurfaces
from ..abstractions.modal_drone import ModalDrone
from ..abstractions.motors import Motors

ALTITUDE_HOLD, CLIMB_RATE_HOLD = FlightMode.HEADING_AUTOPILOT, FlightMode.BANK_AUTOPILOT
# The modes the control tick tells apart, as plain ints: an IntEnum member's lookup on its
# class costs more than the comparison, on every tick.
ACTUATORS, RATES = int(FlightMode.ACTUATORS), int(FlightMode.RATES)
AUTOPILOT_MODES = (int(ALTITUDE_HOLD), int(CLIMB_RATE_HOLD))


class Fixedwing(ModalDrone):
    """A fixed-wing aircraft with one motor, a main wing with ailerons, and two tails.

    Modes:
        -1: [left aileron, right aileron, horizontal tail, vertical tail, wing, thrust];
            surfaces in [-1, 1] of their deflection limits, thrust in [0, 1].
        0: [roll, pitch, yaw, thrust], surface commands in [-1, 1] mixed to the surfaces.
        1: attitude hold [roll rad, pitch rad, yaw rate rad/s, throttle 0..1].
        2: altitude, airspeed and heading hold [heading rad, airspeed m/s, 0, altitude m]:
           TECS and a course hold with coordinated turns (docs/fixedwing.md#autopilot).
        3: bank, airspeed and climb rate [bank rad, airspeed m/s, 0, climb rate m/s].
        Modes 2 and 3 need the YAML's ``trim`` and ``autopilot`` sections (the shipped
        models have them); heading is ENU (0 = east, counter-clockwise), bank is a roll
        (positive = right wing down).

    ``aux_state`` is (6,): the five surface deflections [rad] in the YAML's ``surfaces``
    order (horizontal tail, vertical tail, left aileron, right aileron, main wing for the
    shipped models) and the motor throttle.
    Spawned (and reset) with the YAML's ``starting_velocity`` (body frame).

    Args:
        p: the aviary the vehicle lives in (given by the Aviary).
        start_pos: (3,) spawn position [m].
        start_orn: (3,) spawn Euler angles [rad].
        physics_hz: physics rate [Hz].
        np_random: the aviary's random generator.
        control_hz: control rate [Hz]; default from the YAML.
        drone_model: ``"fixedwing"`` (default) or another model folder, e.g. ``"acrowing"``.
        model_dir: folder of model folders (default: the package's models).
        **onboard_options: the camera's (``use_camera`` and friends, see
            :meth:`ModalDrone.setup_camera`) and ``sensors`` (:meth:`ModalDrone.setup_sensors`).
        starting_velocity: (3,) body-frame spawn velocity [m/s]; default from the YAML.
    """

    modes = FIXEDWING_MODES

    def __init__(self, p, start_pos, start_orn, control_hz: int | None = None,
                 physics_hz: int = DEFAULT_PHYSICS_HZ, drone_model: str = "fixedwing",
                 model_dir: str | Path | None = None, np_random: np.random.Generator | None = None,
                 starting_velocity=None, **onboard_options):
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random)
        np_random = self.np_random
        params = self.params
        self.starting_velocity = as_float_array(
            "starting_velocity",
            params["starting_velocity"] if starting_velocity is None else starting_velocity, (3,))
        mp = params["motor_params"]
        max_rpm = np.sqrt(mp["total_thrust"] / mp["thrust_coef"])
        self.motors = Motors(p, self.physics_period, np_random, self.Id,
                             [self.link_id(mp["link"])], tau=[mp["tau"]], max_rpm=[max_rpm],
                             thrust_coef=[mp["thrust_coef"]], torque_coef=[mp["torque_coef"]],
                             thrust_unit=[mp["thrust_unit"]], noise_ratio=[mp["noise_ratio"]])
        self.surfaces = LiftingSurfaces(self.surfaces_from_yaml(params["surfaces"]))
        dp = params["drag_params"]
        self.drag = BoringBodies(p, self.physics_period, np_random, self.Id, [-1],
                                 dp["drag_coefs"], dp["normal_areas"])
        self._motor_on_base = self.motors.on_base  # else it applies its own loads
        self.mixer = as_float_array("mixer", params["mixer"], (SURFACE_COMMANDS, 3))
        self.attitude = FixedwingAttitude(params["attitude_controller"], self.control_period)
        self.autopilot = None
        if "autopilot" in params:
            self.autopilot = FixedwingAutopilot(
                self.attitude, params["trim"], params["autopilot"], self.control_period,
                self.mass, mp["total_thrust"], abs(getattr(p, "gravity", 9.81)))
        else:  # a model without the autopilot's sections (e.g. one ported from PyFlyt)
            self.modes = tuple(m for m in self.modes
                               if m not in (ALTITUDE_HOLD, CLIMB_RATE_HOLD))
        self.setup_onboard(**onboard_options)
        self.surface_command = np.zeros(SURFACE_COMMANDS)
        self.thrust_command = np.zeros(1)
        self.aux_state = np.zeros(SURFACE_COMMANDS + 1)
        self._give_starting_velocity()
        self.update_state()
        self.set_mode(0)

    @property
    def airspeed(self) -> float:
        """Airspeed [m/s]: the norm of the air velocity."""
        return float(np.linalg.norm(self.air_velocity()))

    def setpoint_size_of(self, mode: int) -> int:
        return SURFACE_COMMANDS + 1 if mode == FlightMode.ACTUATORS else 4

    def _give_starting_velocity(self) -> None:
        rotation = np.array(pybullet.getMatrixFromQuaternion(self.start_orn)).reshape(3, 3)
        pybullet.resetBaseVelocity(self.Id, (rotation @ self.starting_velocity).tolist(),
                                   (0.0, 0.0, 0.0), physicsClientId=self.client_id)

    def reset_components(self) -> None:
        # the starting velocity first: the mode's hold setpoint is taken after this
        self._give_starting_velocity()
        self.motors.reset()
        self.surfaces.reset()
        self.drag.reset()
        self.surface_command[:] = 0.0
        self.thrust_command[:] = 0.0

    def reset_controllers(self) -> None:
        self.attitude.reset()
        if self.autopilot is not None:
            self.autopilot.reset()

    def preset_setpoint(self, mode: int) -> np.ndarray:
        if mode == FlightMode.ATTITUDE:  # hold the current attitude, no turn, current throttle
            roll, pitch, _ = self.state[1]
            return np.array((roll, pitch, 0.0, self.thrust_command[0]))
        if mode in (ALTITUDE_HOLD, CLIMB_RATE_HOLD):  # hold course (or wings level), speed
            tecs = self.autopilot.tecs
            airspeed = min(max(self.airspeed, tecs.min_airspeed), tecs.max_airspeed)
            if mode == CLIMB_RATE_HOLD:
                return np.array((0.0, airspeed, 0.0, 0.0))
            course = self.autopilot.course(self.rotation_matrix, self.world_velocity)
            return np.array((course, airspeed, 0.0, self.state[3][2]))
        return np.zeros(self.setpoint_size_of(mode))

    def control(self, mode: int, setpoint: np.ndarray) -> None:
        if mode == ACTUATORS:
            self.surface_command[:] = setpoint[:SURFACE_COMMANDS]  # the surfaces clip them
            self.thrust_command[0] = min(max(setpoint[SURFACE_COMMANDS], 0.0), 1.0)
            return
        if mode in AUTOPILOT_MODES:
            first, airspeed_setpoint, _, last = setpoint.tolist()
            airspeed = self.airspeed
            if mode == ALTITUDE_HOLD:
                bank = self.autopilot.bank_for_heading(first, airspeed, self.rotation_matrix,
                                                       self.world_velocity)
                climb_rate = self.autopilot.tecs.climb_rate_for(last, float(self.state[3][2]))
            else:
                bank, climb_rate = first, last
            rpy, throttle = self.autopilot.step(bank, airspeed_setpoint, climb_rate, self.state,
                                                self.rotation_matrix, airspeed)
            self._mix(*rpy)
            self.thrust_command[0] = throttle
            return
        # Clipped to their range before mixing: mixing huge commands (1e308) by a model's
        # mixer could overflow, and inf - inf is NaN.
        values = setpoint.tolist()
        if mode == RATES:
            roll, pitch, yaw = [min(max(v, -1.0), 1.0) for v in values[:3]]
        else:
            roll, pitch, yaw = self.attitude.step_values(values, self.state, self.rotation_matrix)
        self._mix(roll, pitch, yaw)
        self.thrust_command[0] = min(max(values[3], 0.0), 1.0)

    def _mix(self, roll: float, pitch: float, yaw: float) -> None:
        """Surface commands of [roll, pitch, yaw] commands through the mixer."""
        # On Python floats (a 5 x 3 product costs more through numpy), each row summed in
        # the batched engine's order.
        self.surface_command[:] = [m_roll * roll + m_pitch * pitch + m_yaw * yaw
                                   for m_roll, m_pitch, m_yaw in self.mixer.tolist()]

    def update_physics(self) -> None:
        # The whole airframe's loads as one force and one torque on the base, summed on
        # Python floats: surfaces, then fuselage drag, then motor, as the batched engine
        # sums them (batch/fixedwing/aerodynamics.py), and one pybullet call each.
        rates, _, velocity, _ = self.state.tolist()  # body rates, body velocity
        if self.p.wind_field is not None:  # the body-frame air velocity instead
            velocity = list(transpose_times_vector(self.rotation_matrix.ravel().tolist(),
                                                   *self.air_velocity().tolist()))
        self.surfaces.flow_update(velocity + rates)
        fx, fy, fz, tx, ty, tz = self.surfaces.base_wrench(self.surface_command)
        [(dx, dy, dz)] = self.drag.forces((velocity,))  # the fuselage is the base
        fx, fy, fz = fx + dx, fy + dy, fz + dz
        if self._motor_on_base:
            mx, my, mz, nx, ny, nz = self.motors.base_wrench(self.thrust_command)
            fx, fy, fz, tx, ty, tz = fx + mx, fy + my, fz + mz, tx + nx, ty + ny, tz + nz
        else:
            self.motors.physics_update(self.thrust_command)
        uav, client, frame = self.Id, self.client_id, pybullet.LINK_FRAME
        pybullet.applyExternalForce(uav, -1, (fx, fy, fz), (0.0, 0.0, 0.0), frame,
                                    physicsClientId=client)
        pybullet.applyExternalTorque(uav, -1, (tx, ty, tz), frame, physicsClientId=client)

    def update_state(self) -> None:
        super().update_state()
        self.aux_state[:SURFACE_COMMANDS] = self.surfaces.deflection
        self.aux_state[SURFACE_COMMANDS] = self.motors.throttle[0]
