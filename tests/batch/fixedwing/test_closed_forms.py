"""The batched fixed-wing against closed forms of flight mechanics.

- steady glide: the aerodynamic force balances the weight, and the glide angle is the one
  whose tangent is the drag-to-lift ratio the surfaces produce (tan gamma = D / L);
- level steady turn at bank phi: the load factor (aerodynamic and thrust force over the
  weight) is 1 / cos phi;
- stall: the main wing passes its stall angle as the airspeed falls through the 1 g stall
  speed ``V_s = sqrt(2 m g / (rho S CL_max))`` of the wing, not before.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.common.rotations import quat_to_matrix
from pyflyt_like.physics.air import AIR_DENSITY
from pyflyt_like.physics.lifting_surface import angle_of_attack, coefficients

HZ = 240
G = 9.81


def world_load(sim: BatchedAviary) -> np.ndarray:
    """(3,) the last step's aerodynamic and motor force on aircraft (0, 0), world frame [N]."""
    rotation = np.array(quat_to_matrix(*sim.quat[0, 0])).reshape(3, 3)
    return rotation @ sim._state.wrench[0, 0, :3]


@pytest.mark.parametrize(("model", "pitch"), [("acrowing", 0.1), ("fixedwing", 0.05)])
def test_steady_glide_angle_is_the_drag_to_lift_ratio(model, pitch):
    sim = BatchedAviary(drone_model=model, mode=1, physics_hz=HZ,
                        start_pos=[[0.0, 0.0, 2000.0]])
    sim.set_setpoints([0.0, pitch, 0.0, 0.0])  # wings level, nose down, motor off
    sim.step(60 * HZ)  # the phugoid dies out
    ratios, slopes, loads = [], [], []
    for _ in range(2 * HZ):
        sim.step(1)
        force = world_load(sim)
        air = sim.vel[0, 0] - sim.wind[0]
        along = air / np.linalg.norm(air)
        drag = -force @ along
        lift = np.linalg.norm(force + drag * along)
        ratios.append(drag / lift)
        slopes.append(-air[2] / math.hypot(air[0], air[1]))
        loads.append(np.linalg.norm(force) / (sim.model.body.mass * G))
    assert np.std(slopes) < 1e-3  # steady
    assert np.mean(slopes) == pytest.approx(np.mean(ratios), rel=5e-3)
    assert np.mean(loads) == pytest.approx(1.0, abs=5e-3)
    assert 0.1 < np.mean(ratios) < 0.4  # a glide ratio of 2.5 to 10


@pytest.mark.parametrize("model", ["acrowing", "fixedwing"])
@pytest.mark.parametrize("bank", [0.3, 0.5])
def test_level_turn_load_factor_is_one_over_cos_bank(model, bank):
    sim = BatchedAviary(drone_model=model, mode=3, physics_hz=HZ,
                        start_pos=[[0.0, 0.0, 500.0]])
    sim.set_setpoints([bank, sim.model.trim["airspeed"], 0.0, 0.0])
    sim.step(30 * HZ)
    loads, banks, climbs = [], [], []
    for _ in range(HZ):
        sim.step(1)
        loads.append(np.linalg.norm(world_load(sim)) / (sim.model.body.mass * G))
        banks.append(sim.state[0, 0, 1, 0])
        climbs.append(sim.vel[0, 0, 2])
    assert np.mean(banks) == pytest.approx(bank, abs=2e-3)
    assert abs(np.mean(climbs)) < 0.01  # level
    assert np.mean(loads) == pytest.approx(1.0 / math.cos(np.mean(banks)), rel=3e-3)


def test_the_wing_stalls_at_the_stall_speed():
    """acrowing, motor off, elevator pulled slowly: the main wing passes its stall angle
    within 5 % of V_s: not while faster than 1.05 V_s, and before the aircraft is slower
    than 0.95 V_s. (The fixedwing model's tail stalls before its elevator can take the
    wing that far.)"""
    sim = BatchedAviary(drone_model="acrowing", mode=-1, physics_hz=HZ,
                        start_pos=[[0.0, 0.0, 500.0]])
    model = sim.model
    s, n = model.surfaces, model.n_surfaces
    names = [entry["link"] for entry in model.params["surfaces"]]
    wing = [names.index(name) for name in ("main_wing", "left_aileron", "right_aileron")]
    lift_area = sum(2.0 * s.half_rho_area[i] / AIR_DENSITY * coefficients(
        s.stall_p_base[i], 0.0, s.flap_gain[i], s.alpha_0_base[i], s.stall_p_base[i],
        s.stall_n_base[i], s.aspect[i], s.cl_alpha[i], s.cd_0[i], s.plate_loss[i])[0]
        for i in wing)
    stall_speed = math.sqrt(2.0 * model.body.mass * G / (AIR_DENSITY * lift_area))
    main = names.index("main_wing")
    for k in range(60 * HZ):
        sim.set_setpoints([0.0, 0.0, -min(k / (10 * HZ), 1.0), 0.0, 0.0, 0.0])
        sim.step(1)
        rotation = np.array(quat_to_matrix(*sim.quat[0, 0])).reshape(3, 3)
        motion = np.r_[rotation.T @ (sim.vel[0, 0] - sim.wind[0]), sim.ang_vel[0, 0]]
        flow = model.flow_map @ motion
        if angle_of_attack(flow[main], flow[n + main]) > s.stall_p_base[main]:
            break
        assert sim.airspeed[0, 0] > 0.95 * stall_speed
    else:
        pytest.fail("the wing never stalled")
    assert sim.airspeed[0, 0] == pytest.approx(stall_speed, rel=0.05)
