"""LiftingSurfaces in isolation: lift slope, stall, flap effect, lag, parameter checks."""

import math

import numpy as np
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import LiftingSurface, LiftingSurfaces
from pyflyt_like.core.abstractions.boring_bodies import AIR_DENSITY

WING = dict(surface_id=-1, command_id=0, command_sign=1.0, lifting_unit=(0, 0, 1),
            forward_unit=(1, 0, 0), Cl_alpha_2D=6.28, chord=0.2, span=1.6, flap_to_chord=0.3,
            eta=0.65, alpha_0_base=-2.0, alpha_stall_P_base=15.0,
            alpha_stall_N_base=-15.0, Cd_0=0.01, deflection_limit=20.0, tau=0.05)


@pytest.fixture
def surfaces():
    with Aviary(np.array([[0.0, 0.0, 5.0]]), np.zeros((1, 3)), seed=0) as aviary:
        drone = aviary.drones[0]
        yield LiftingSurfaces([LiftingSurface(aviary, 1 / 240, aviary.np_random, drone.Id,
                                              **WING)])


def loads_at(surfaces, alpha, speed=20.0, command=0.0, steps=1):
    """Force (3,) in the link frame with the airflow at ``alpha`` [rad] in the x-z plane."""
    velocity = speed * np.array([math.cos(alpha), 0.0, -math.sin(alpha)])
    surfaces.state_update(np.eye(3), velocity, np.zeros(3))  # the surface is on the base
    for _ in range(steps):
        surfaces.physics_update(np.array([command]))
    return surfaces.forces[0].copy(), velocity


def lift_of(force, velocity):
    """Component of ``force`` perpendicular to the flow, in the x-z plane, positive up."""
    flow = velocity / np.linalg.norm(velocity)
    lift_direction = np.array([flow[2] * -1.0, 0.0, flow[0]])
    return force @ lift_direction


def test_lift_slope_matches_finite_wing_theory(surfaces):
    aspect = WING["span"] / WING["chord"]
    cl_alpha_3d = WING["Cl_alpha_2D"] * aspect / (aspect + 2 * (aspect + 4) / (aspect + 2))
    q_s = 0.5 * AIR_DENSITY * 20.0**2 * WING["chord"] * WING["span"]
    for alpha_deg in (-4.0, 0.0, 2.0, 5.0):
        alpha = math.radians(alpha_deg)
        force, velocity = loads_at(surfaces, alpha)
        expected = q_s * cl_alpha_3d * (alpha - math.radians(WING["alpha_0_base"]))
        assert lift_of(force, velocity) == pytest.approx(expected, rel=0.03)


def test_lift_coefficient_drops_past_stall(surfaces):
    alphas = np.radians([10.0, 14.0, 20.0, 30.0])
    cl = [surfaces.aerodynamics(np.array([a]), np.zeros(1))[0][0] for a in alphas]
    assert cl[1] > cl[0]  # still climbing before stall
    assert cl[2] < cl[1] and cl[3] < cl[1]  # lost after stall
    cd = [surfaces.aerodynamics(np.array([a]), np.zeros(1))[1][0] for a in alphas]
    assert cd[3] > cd[2] > cd[0]  # drag keeps rising once stalled
    assert cd[3] > 1.5 * cd[0]


def test_flap_down_shifts_zero_lift_angle_negative(surfaces):
    def zero_lift_alpha(deflection):
        grid = np.radians(np.linspace(-10, 5, 3001))
        cl = np.array([surfaces.aerodynamics(np.array([a]), np.array([deflection]))[0][0]
                       for a in grid[::10]])
        return grid[::10][np.argmin(np.abs(cl))]

    base = zero_lift_alpha(0.0)
    down = zero_lift_alpha(math.radians(10.0))
    up = zero_lift_alpha(math.radians(-10.0))
    assert base == pytest.approx(math.radians(-2.0), abs=math.radians(0.2))
    assert down < base - math.radians(2.0)  # trailing edge down: more lift at every alpha
    assert up > base + math.radians(2.0)


def test_deflection_follows_first_order_lag(surfaces):
    dt, tau = 1 / 240, WING["tau"]
    limit = math.radians(WING["deflection_limit"])
    surfaces.state_update(np.eye(3), np.array([20.0, 0.0, 0.0]), np.zeros(3))
    for k in range(1, 25):
        surfaces.physics_update(np.array([1.0]))
        assert surfaces.deflection[0] == pytest.approx(limit * (1 - math.exp(-k * dt / tau)),
                                                       rel=1e-9)
    surfaces.physics_update(np.array([5.0]))  # commands beyond +-1 saturate at the limit
    assert surfaces.deflection[0] <= limit


@pytest.mark.parametrize("field, value", [("chord", -0.1), ("span", 0.0),
                                          ("deflection_limit", 95.0),
                                          ("flap_to_chord", 1.5), ("tau", 0.0),
                                          ("lifting_unit", (1, 0, 0)),
                                          ("forward_unit", (1, 0)),
                                          ("alpha_stall_P_base", -5.0)])
def test_bad_parameters_raise_naming_them(field, value):
    with pytest.raises((ValueError, TypeError), match=field.split("_base")[0].split("_unit")[0]):
        LiftingSurface(None, 1 / 240, None, 1, **{**WING, field: value})
