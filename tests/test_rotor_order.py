"""Rotor order and spins of the shipped multirotor models (docs/multirotor.md, "Rotor order
and spin directions"): balanced spins, full authority, the gym-pybullet-drones mapping for the
cf2x, and yaw-left speeding up exactly the +1 rotors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

import pyflyt_like
from pyflyt_like.control.allocation import Allocator, actuation_matrix

MODEL_DIR = Path(pyflyt_like.__file__).parent / "models" / "multirotors"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "multirotor.md"
DOCUMENTED = ("cf2x", "cf2p", "racer", "crazyflie21", "crazyflie21plus", "hexarotor")
MODELS = sorted(path.parent.name for path in MODEL_DIR.glob("*/*.yaml")
                if path.stem == path.parent.name)
G = 9.81

# gym-pybullet-drones' cf2x.urdf: prop0 front-left, prop1 rear-left, prop2 rear-right,
# prop3 front-right, arm 0.028 m along each axis; its spins in its own convention.
GPD_CF2X_XY = np.array([[0.028, 0.028], [-0.028, 0.028], [-0.028, -0.028], [0.028, -0.028]])
GPD_CF2X_SPINS = np.array([-1.0, 1.0, -1.0, 1.0])
GPD_TO_OURS = [1, 2, 3, 0]


def load(name: str) -> dict:
    return yaml.safe_load((MODEL_DIR / name / f"{name}.yaml").read_text(encoding="utf-8"))


def rotor_arrays(name: str):
    """(positions (n, 3), spins (n,), kf (n,), km (n,)) as the Multirotor builds them."""
    rotors = load(name)["rotors"]
    positions = np.array(rotors["positions"], dtype=float)
    n = len(positions)
    return (positions, np.array(rotors["spins"], dtype=float),
            np.full(n, float(rotors["kf"])), np.full(n, float(rotors["km"])))


def speed_limits(name: str) -> tuple[np.ndarray, np.ndarray]:
    params = load(name)
    rotors = params["rotors"]
    n = len(rotors["positions"])
    if "max_speed" in rotors:
        top = float(rotors["max_speed"])
    else:
        top = np.sqrt(rotors["thrust_to_weight"] * params["mass"] * G / (n * rotors["kf"]))
    return np.full(n, float(rotors.get("min_speed", 0.0))), np.full(n, top)


def test_every_shipped_model_is_documented():
    assert tuple(sorted(DOCUMENTED)) == tuple(MODELS)
    section = DOCS.read_text(encoding="utf-8").split("## Rotor order and spin directions")[1]
    section = section.split("\n## ")[0]
    for name in MODELS:
        assert f"### `{name}`" in section, f"no rotor table for {name} in {DOCS.name}"


@pytest.mark.parametrize("name", MODELS)
def test_spins_cancel_at_hover(name):
    positions, spins, _, km = rotor_arrays(name)
    assert np.all(np.abs(spins) == 1)
    if len(spins) % 2:
        pytest.skip("an odd rotor count cannot balance equal spins")
    assert spins.sum() == 0
    hover = np.full(len(spins), 1000.0)
    assert np.sum(km * hover**2 * spins) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_actuation_matrix_has_rank_4(name):
    assert np.linalg.matrix_rank(actuation_matrix(*rotor_arrays(name))) == 4


def test_cf2x_gpd_mapping_sends_gpd_corners_onto_ours():
    positions, spins, _, _ = rotor_arrays("cf2x")
    np.testing.assert_allclose(GPD_CF2X_XY[GPD_TO_OURS], positions[:, :2], atol=1e-12)
    # The inverse documented in the page.
    assert np.argsort(GPD_TO_OURS).tolist() == [3, 0, 1, 2]
    # Same torque law, opposite sign at every corner: the documented yaw mirroring.
    np.testing.assert_array_equal(GPD_CF2X_SPINS[GPD_TO_OURS], -spins)


def test_racer_spins_are_the_cf2x_spins_inverted():
    """Deliberate: the racer inverts all spins (docs/multirotor.md)."""
    racer_positions, racer_spins, _, _ = rotor_arrays("racer")
    cf2x_positions, cf2x_spins, _, _ = rotor_arrays("cf2x")
    np.testing.assert_array_equal(np.sign(racer_positions), np.sign(cf2x_positions))
    np.testing.assert_array_equal(racer_spins, -cf2x_spins)


@pytest.mark.parametrize("name", MODELS)
def test_yaw_left_speeds_up_exactly_the_plus_one_rotors(name):
    positions, spins, kf, km = rotor_arrays(name)
    allocator = Allocator(actuation_matrix(positions, spins, kf, km), *speed_limits(name))
    weight = load(name)["mass"] * G
    hover = allocator.allocate(np.array([weight, 0.0, 0.0, 0.0]))
    assert not allocator.saturated
    # 5 % of the yaw torque of all rotors at hover speed: small, well inside the limits.
    yaw = 0.05 * float(np.sum(km * hover**2))
    turning = allocator.allocate(np.array([weight, 0.0, 0.0, yaw]))
    assert not allocator.saturated
    np.testing.assert_array_equal(turning > hover, spins > 0)
    np.testing.assert_array_equal(turning < hover, spins < 0)
