"""A user vehicle written the way PyFlyt's custom-UAV example writes one.

The class below implements only PyFlyt's five hooks, reads its own YAML from
``param_path``, builds components with PyFlyt's keyword names and is loaded from its own
model folder through ``model_dir``. The physics is checked against the rocket equation.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import (
    Boosters,
    BoringBodies,
    DroneClass,
    LiftingSurface,
    LiftingSurfaces,
)

MODEL_DIR = Path(__file__).parent / "custom_uavs"
G = 9.81
DRY_MASS = 1.0  # kg, rocket_brick.urdf's base link


class RocketBrick(DroneClass):
    """A brick with a booster and a fin; setpoint [ignition, throttle, fin]."""

    def __init__(self, p, start_pos, start_orn, control_hz=120, physics_hz=240,
                 drone_model="rocket_brick", model_dir=str(MODEL_DIR), np_random=None):
        super().__init__(p=p, start_pos=start_pos, start_orn=start_orn, control_hz=control_hz,
                         physics_hz=physics_hz, model_dir=model_dir, drone_model=drone_model,
                         np_random=np_random)
        with open(self.param_path, "rb") as f:
            params = yaml.safe_load(f)
        booster, fin = params["booster_params"], params["fin_params"]
        links = {name: i for i, name in self.get_joint_info().items()}
        self.boosters = Boosters(
            p=self.p, physics_period=self.physics_period, np_random=self.np_random,
            uav_id=self.Id, booster_ids=np.array([links["booster"]]),
            fueltank_ids=np.array([links["fueltank"]]), tau=np.array([booster["tau"]]),
            total_fuel_mass=np.array([booster["total_fuel_mass"]]),
            max_fuel_rate=np.array([booster["max_fuel_rate"]]),
            max_inertia=np.array([booster["max_inertia"]]),
            min_thrust=np.array([booster["min_thrust"]]),
            max_thrust=np.array([booster["max_thrust"]]),
            thrust_unit=np.array([booster["thrust_unit"]]),
            reignitable=np.array([booster["reignitable"]], dtype=bool),
            noise_ratio=np.array([booster["noise_ratio"]]))
        self.lifting_surfaces = LiftingSurfaces(lifting_surfaces=[LiftingSurface(
            p=self.p, physics_period=self.physics_period, np_random=self.np_random,
            uav_id=self.Id, surface_id=links["fin"], **fin)])
        self.body = BoringBodies(p=self.p, physics_period=self.physics_period,
                                 np_random=self.np_random, uav_id=self.Id, body_ids=[-1],
                                 drag_coefs=[[0.0, 0.0, 0.0]], normal_areas=[[0.09, 0.09, 0.09]])

    def reset(self):
        self.set_mode(0)
        self.setpoint = np.zeros(3)
        self.p.resetBasePositionAndOrientation(self.Id, self.start_pos, self.start_orn)
        self.p.resetBaseVelocity(self.Id, [0, 0, 0], [0, 0, 0])
        self.disable_artificial_damping()
        self.boosters.reset(starting_fuel_ratio=1.0)
        self.lifting_surfaces.reset()
        self.body.reset()
        self.update_state()

    def update_control(self, physics_step):
        if physics_step % self.physics_control_ratio != 0:
            return
        self.ignition, self.throttle, self.fin = self.setpoint[:1], self.setpoint[1:2], \
            self.setpoint[2:]

    def update_physics(self):
        self.boosters.physics_update(self.ignition, self.throttle)
        self.lifting_surfaces.physics_update(self.fin)
        self.body.physics_update()

    def update_state(self):
        position, quaternion = self.p.getBasePositionAndOrientation(self.Id)
        velocity, rates = self.p.getBaseVelocity(self.Id)
        rotation = np.array(self.p.getMatrixFromQuaternion(quaternion)).reshape(3, 3).T
        self.state = np.stack((rotation @ rates, self.p.getEulerFromQuaternion(quaternion),
                               rotation @ velocity, position))
        self.aux_state = self.boosters.get_states()
        self.lifting_surfaces.state_update(rotation)
        self.body.state_update(rotation)

    def update_last(self, physics_step):
        pass


def _aviary(**options) -> Aviary:
    return Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
                  drone_type="rocket_brick", drone_type_mappings={"rocket_brick": RocketBrick},
                  drone_options=options)


def test_rocket_brick_loads_from_its_folder_with_pyflyts_contract():
    env = _aviary()
    drone = env.drones[0]
    assert drone.drone_path == MODEL_DIR / "rocket_brick" / "rocket_brick.urdf"
    assert drone.physics_control_ratio == 2
    assert drone.modes == (0,) and drone.mode == 0
    assert drone.registered_controllers == {}
    # start_orn arrives as a quaternion (PyFlyt's Aviary hands drones one).
    assert np.allclose(drone.start_orn, [0.0, 0.0, 0.0, 1.0])
    assert set(drone.get_joint_info().values()) == {"base", "fueltank", "booster", "fin"}
    env.close()


def test_rocket_brick_climbs_by_the_rocket_equation():
    """Full throttle for 1 s: v = (T/r) ln(m0 / (m0 - r t)) - g t, fuel burnt r t."""
    env = _aviary()
    env.set_setpoint(0, [1.0, 1.0, 0.0])
    for _ in range(120):
        env.step()
    thrust, rate, fuel = 20.0, 0.02, 0.1
    m0 = DRY_MASS + fuel
    expected_v = thrust / rate * math.log(m0 / (m0 - rate * 1.0)) - G * 1.0
    vertical = env.state(0)[2][2]  # body frame, and the brick stays upright
    lag_loss = 0.01 * thrust / m0  # the throttle's first-order lag, tau * T / m
    assert vertical == pytest.approx(expected_v - lag_loss, rel=0.01)
    assert env.aux_state(0)[1] == pytest.approx((fuel - rate * (1.0 - 0.01)) / fuel, abs=1e-3)
    assert abs(env.state(0)[3][0]) < 1e-6  # no fin command, no side force
    env.close()


def test_rocket_brick_fin_pushes_it_sideways_and_reset_refuels():
    env = _aviary()
    env.set_setpoint(0, [1.0, 1.0, 1.0])
    for _ in range(240):
        env.step()
    assert abs(env.state(0)[3][0]) > 0.05  # the deflected fin lifts along body x
    assert env.aux_state(0)[1] < 1.0
    env.reset()
    assert env.aux_state(0)[1] == 1.0
    assert np.allclose(env.state(0)[3], [0.0, 0.0, 1.0])
    env.close()


def test_rocket_brick_disarmed_falls_freely():
    env = _aviary()
    env.set_armed([False])
    for _ in range(30):
        env.step()
    # Disarmed drones are not updated: gravity alone acts for 0.25 s.
    position = env.getBasePositionAndOrientation(env.drones[0].Id)[0]
    assert position[2] == pytest.approx(1.0 - 0.5 * G * 0.25**2, abs=0.01)
    env.close()
