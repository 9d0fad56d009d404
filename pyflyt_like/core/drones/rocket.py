"""Rocket: a 1:10 Falcon-9-like first stage with a gimballed booster and grid fins."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.validation import as_float_array, check_finite

from ..abstractions.boosters import Boosters
from ..abstractions.boring_bodies import BoringBodies
from ..abstractions.gimbals import Gimbals
from ..abstractions.lifting_surfaces import LiftingSurfaces
from ..abstractions.modal_drone import ModalDrone

FINLETS = 4


class Rocket(ModalDrone):
    """A rocket stage flown directly by its actuators (one mode, 0).

    Setpoint (7,): [finlet x, finlet y, finlet yaw] in [-1, 1] (mixed to the four fins),
    ignition (> 0.5 lights the booster), throttle in [0, 1], gimbal 1 and gimbal 2 in [-1, 1]
    of the gimbal range. ``aux_state`` (9,): fin deflections [rad] (4), booster ignition,
    fuel ratio and throttle, gimbal angles [rad] (2).

    Args:
        p: the aviary the vehicle lives in (given by the Aviary).
        start_pos: (3,) spawn position [m].
        start_orn: (3,) spawn Euler angles [rad].
        physics_hz: physics rate [Hz].
        np_random: the aviary's random generator.
        control_hz: control rate [Hz]; default from the YAML.
        drone_model: model folder name (default ``"rocket"``).
        model_dir: folder of model folders (default: the package's models).
        starting_fuel_ratio: fuel at spawn and on every reset, as a fraction of a full tank
            in [0, 1]. Default 1.0, a full tank; PyFlyt's default is 0.05.
        **onboard_options: the camera's (``use_camera`` and friends, see
            :meth:`ModalDrone.setup_camera`) and ``sensors`` (:meth:`ModalDrone.setup_sensors`).
    """

    modes = (0,)
    setpoint_size = 7

    def __init__(self, p, start_pos, start_orn, control_hz: int | None = None,
                 physics_hz: int = DEFAULT_PHYSICS_HZ, drone_model: str = "rocket",
                 model_dir: str | Path | None = None, np_random: np.random.Generator | None = None,
                 starting_fuel_ratio: float = 1.0, **onboard_options):
        ratio = check_finite("starting_fuel_ratio", starting_fuel_ratio)
        if not 0.0 <= ratio <= 1.0:
            raise ValueError(f"starting_fuel_ratio must be within [0, 1] (of a full tank), "
                             f"got {starting_fuel_ratio!r}")
        self.starting_fuel_ratio = ratio
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random)
        np_random = self.np_random
        params = self.params
        bp = params["booster_params"]
        self.boosters = Boosters(
            p, self.physics_period, np_random, self.Id, [self.link_id(bp["booster_link"])],
            [self.link_id(bp["fueltank_link"])], tau=[bp["tau"]],
            total_fuel_mass=[bp["total_fuel_mass"]], max_fuel_rate=[bp["max_fuel_rate"]],
            max_inertia=[bp["max_inertia"]], min_thrust=[bp["min_thrust"]],
            max_thrust=[bp["max_thrust"]], thrust_unit=[bp["thrust_unit"]],
            reignitable=[bp["reignitable"]], noise_ratio=[bp["noise_ratio"]])
        gp = params["gimbal_params"]
        self.gimbals = Gimbals(p, self.physics_period, np_random, [gp["gimbal_unit_1"]],
                               [gp["gimbal_unit_2"]], [gp["gimbal_tau"]],
                               [gp["gimbal_range_degrees"]])
        self.finlets = LiftingSurfaces(self.surfaces_from_yaml(params["surfaces"]))
        self.finlet_mixer = as_float_array("finlet_mixer", params["finlet_mixer"], (FINLETS, 3))
        dp = params["drag_params"]
        self.drag = BoringBodies(p, self.physics_period, np_random, self.Id, [-1],
                                 dp["drag_coefs"], dp["normal_areas"])
        self.setup_onboard(**onboard_options)
        self.finlet_command = np.zeros(FINLETS)
        self.ignition = np.zeros(1)
        self.throttle_command = np.zeros(1)
        self.gimbal_command = np.zeros((1, 2))
        self.aux_state = np.zeros(FINLETS + 3 + 2)
        self.update_state()
        self.set_mode(0)

    def reset_components(self) -> None:
        self.boosters.reset(self.starting_fuel_ratio)
        self.gimbals.reset()
        self.finlets.reset()
        self.drag.reset()
        self.finlet_command[:] = 0.0
        self.ignition[:] = 0.0
        self.throttle_command[:] = 0.0
        self.gimbal_command[:] = 0.0

    def reset_controllers(self) -> None:
        """The rocket has no built-in controller."""

    def preset_setpoint(self, mode: int) -> np.ndarray:
        return np.zeros(self.setpoint_size)

    def control(self, mode: int, setpoint: np.ndarray) -> None:
        # Commands are documented in [-1, 1]; clip before mixing so a huge one cannot overflow.
        self.finlet_command[:] = self.finlet_mixer @ np.clip(setpoint[:3], -1.0, 1.0)
        self.ignition[0] = setpoint[3]
        self.throttle_command[0] = setpoint[4]
        self.gimbal_command[0] = setpoint[5:7]

    def update_physics(self) -> None:
        air = self.air_velocity()
        self.finlets.state_update(self.rotation_matrix.T, air, self.state[0])
        self.finlets.physics_update(self.finlet_command)
        self.drag.state_update(self.rotation_matrix.T, air)
        self.drag.physics_update()
        rotation = self.gimbals.compute_rotation(self.gimbal_command)
        self.boosters.physics_update(self.ignition, self.throttle_command, rotation)

    def update_state(self) -> None:
        super().update_state()
        self.aux_state[:FINLETS] = self.finlets.deflection
        self.aux_state[FINLETS:FINLETS + 3] = self.boosters.get_states()
        self.aux_state[FINLETS + 3:] = self.gimbals.angles[0]
