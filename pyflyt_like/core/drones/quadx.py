"""QuadX: a PyFlyt-compatible quadrotor in X configuration, flown through flight modes -1..7."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.control.quadx_cascade import ALTITUDE_MODES, QUADX_MODES, QuadXCascade

from ..abstractions.boring_bodies import BoringBodies
from ..abstractions.modal_drone import ModalDrone
from ..abstractions.motors import Motors


class QuadX(ModalDrone):
    """Quadrotor with PX4 Quad-X motor order and PyFlyt's flight modes.

    Modes (setpoint of 4): -1 motor commands; 0 rates + throttle; 1 angles + climb rate;
    2 rates + altitude; 3 angles + altitude; 4 body u, v + yaw rate + altitude; 5 u, v + yaw
    rate + climb rate; 6 ground vx, vy + yaw rate + climb rate; 7 x, y, yaw, z.
    See docs/quadx.md for units. ``aux_state`` holds the (4,) motor throttles.

    Args:
        p: the aviary the vehicle lives in (given by the Aviary).
        start_pos: (3,) spawn position [m].
        start_orn: (3,) spawn Euler angles [rad].
        physics_hz: physics rate [Hz].
        np_random: the aviary's random generator.
        control_hz: control rate [Hz]; default from the YAML (120).
        drone_model: model folder name (default ``"cf2x"``).
        model_dir: folder of model folders (default: the package's models).
        **onboard_options: the camera's (``use_camera`` and friends, see
            :meth:`ModalDrone.setup_camera`) and ``sensors`` (:meth:`ModalDrone.setup_sensors`).
        noise: multiply the YAML's motor ``noise_ratio`` (0 disables motor noise).
    """

    modes = QUADX_MODES

    def __init__(self, p, start_pos, start_orn, control_hz: int | None = None,
                 physics_hz: int = DEFAULT_PHYSICS_HZ, drone_model: str = "cf2x",
                 model_dir: str | Path | None = None, np_random: np.random.Generator | None = None,
                 noise: float = 1.0, **onboard_options):
        # Checked here, under the user's name: the motors would report it as noise_ratio.
        if isinstance(noise, (bool, np.bool_)) or not isinstance(
                noise, (int, float, np.integer, np.floating)):
            raise TypeError(f"noise must be a finite number >= 0 (multiplier of the model's "
                            f"motor noise; 0 disables it), got {noise!r}")
        if not (math.isfinite(noise) and noise >= 0):
            raise ValueError(f"noise must be a finite number >= 0 (multiplier of the model's "
                             f"motor noise; 0 disables it), got {noise!r}")
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random)
        np_random = self.np_random
        motor_ids = [self.link_id(f"motor{i}") for i in range(4)]
        mp = self.params["motor_params"]
        n = len(motor_ids)
        self.max_total_thrust = float(mp["total_thrust"])
        max_rpm = np.sqrt(self.max_total_thrust / (n * mp["thrust_coef"]))
        self.motors = Motors(
            p, self.physics_period, np_random, self.Id, motor_ids,
            tau=np.full(n, mp["tau"]), max_rpm=np.full(n, max_rpm),
            thrust_coef=np.full(n, mp["thrust_coef"]),
            torque_coef=mp["torque_coef"] * np.asarray(mp["torque_signs"], dtype=float),
            thrust_unit=np.tile(mp["thrust_unit"], (n, 1)),
            noise_ratio=np.full(n, mp["noise_ratio"] * noise),
            tau_fall=np.full(n, mp.get("tau_fall", mp["tau"])),
        )
        dp = self.params["drag_params"]
        self.drag = BoringBodies(p, self.physics_period, np_random, self.Id, [-1],
                                 dp["drag_coefs"], dp["normal_areas"])
        gravity = abs(getattr(p, "gravity", 9.81))
        self.cascade = QuadXCascade(self.params["controller"], self.params["mixer"],
                                    self.control_period, self.mass, self.max_total_thrust,
                                    gravity)
        self.setup_onboard(**onboard_options)
        self.aux_state = np.zeros(n)
        self.pwm = np.zeros(n)
        self.update_state()
        self.set_mode(0)

    @property
    def hover_throttle(self) -> float:
        """Collective throttle in [0, 1] whose thrust balances gravity when level."""
        return self.cascade.hover_throttle()

    def reset_components(self) -> None:
        self.motors.reset()
        self.drag.reset()
        self.pwm[:] = 0.0

    def reset_controllers(self) -> None:
        self.cascade.reset()

    def preset_setpoint(self, mode: int) -> np.ndarray:
        setpoint = np.zeros(4)
        if mode == FlightMode.POSITION:
            x, y, z = self.state[3]
            setpoint[:] = (x, y, self.state[1, 2], z)
        elif mode in ALTITUDE_MODES:
            setpoint[3] = self.state[3, 2]
        return setpoint

    def control(self, mode: int, setpoint: np.ndarray) -> None:
        if mode == FlightMode.ACTUATORS:
            self.pwm[:] = setpoint
        else:
            self.pwm[:] = self.cascade.step(mode, setpoint, self.state, self.world_velocity)

    def update_physics(self) -> None:
        self.drag.state_update(self.rotation_matrix.T, self.air_velocity())
        self.drag.physics_update()
        self.motors.physics_update(self.pwm)

    def update_state(self) -> None:
        super().update_state()
        self.aux_state[:] = self.motors.throttle
