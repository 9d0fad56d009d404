"""QuadX-Gates task logic: scripted races, misses, collisions, the camera and the course."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs.quadx.gate_course import (
    COURSE_MARGIN,
    MAX_GATE_HEIGHT,
    MAX_HEIGHT_STEP,
    MIN_GATE_HEIGHT,
    MISSED,
    NOT_CROSSED,
    PASSED,
    crossing,
    draw_course,
)

from .._env_checks import make

APPROACH = 0.4  # m, the scripted pilot's point before a gate, along its normal
EXIT = 0.5  # m, the scripted pilot's point after a gate
SWITCH_DISTANCE = 0.15  # m, the pilot heads for the exit point once this close to the approach


def action_for(env, setpoint) -> np.ndarray:
    """The normalised action whose setpoint is ``setpoint`` (physical units)."""
    mapping = env.action_mapping
    low = mapping.space.low
    return low + (np.asarray(setpoint, float) - mapping.low) * (1.0 - low) / (
        mapping.high - mapping.low)


def hold(env, position, yaw) -> np.ndarray:
    """Mode-7 action: go to / stay at ``position`` facing ``yaw``."""
    return action_for(env, [position[0], position[1], yaw, position[2]])


def lateral(gates, i) -> np.ndarray:
    """Unit vector across gate ``i``'s opening (its normal turned +90 degrees)."""
    return np.array([-gates.normals[i, 1], gates.normals[i, 0], 0.0])


def teleport(env, position, yaw) -> None:
    """Put the drone at ``position`` facing ``yaw``, at rest."""
    drone = env.drone
    pybullet.resetBasePositionAndOrientation(
        drone.Id, list(position), pybullet.getQuaternionFromEuler([0.0, 0.0, yaw]),
        physicsClientId=drone.client_id)
    pybullet.resetBaseVelocity(drone.Id, [0, 0, 0], [0, 0, 0], physicsClientId=drone.client_id)


def step_at(env, position, yaw):
    """Teleport to ``position`` and take one env step holding it there."""
    teleport(env, position, yaw)
    return env.step(hold(env, position, yaw))


def fly_course(env, seed: int, offset=0.0):
    """Scripted mode-7 pilot through every gate (shifted ``offset`` m across each opening).

    Returns the per-step rewards, the last info and the per-step gate counts.
    """
    env.reset(seed=seed)
    gates = env.gates
    rewards, counts, info = [], [], {}
    leg = "approach"
    for _ in range(env.max_steps):
        i = gates.index
        centre = gates.centres[i] + offset * lateral(gates, i)
        normal = gates.normals[i]
        target = centre + (-APPROACH if leg == "approach" else EXIT) * normal
        if leg == "approach" and np.linalg.norm(env.drone.state[3] - target) < SWITCH_DISTANCE:
            leg = "exit"
        _, reward, terminated, truncated, info = env.step(hold(env, target, gates.headings[i]))
        rewards.append(reward)
        counts.append(info["num_targets_reached"])
        if gates.index != i:
            leg = "approach"
        if terminated or truncated:
            break
    return np.array(rewards), info, counts


# ----------------------------------------------------------------- racing
@pytest.mark.parametrize("seed", [0, 5])
def test_scripted_pilot_passes_every_gate_in_order(seed):
    env = make("QuadX-Gates", flight_mode=7, sparse_reward=True)
    try:
        rewards, info, counts = fly_course(env, seed)
        assert info.get("env_complete") and env.termination and not env.truncation
        assert not info.get("collision") and not info.get("out_of_bounds")
        assert info["num_targets_reached"] == 5
        # Sparse: exactly 5 bonus steps of +100, one gate more each time, nothing else.
        assert rewards.sum() == 500.0
        assert sorted(set(rewards.tolist())) == [0.0, 100.0]
        bonus_steps = np.flatnonzero(rewards == 100.0)
        assert [counts[k] for k in bonus_steps] == [1, 2, 3, 4, 5]
        assert len(rewards) < env.max_steps  # done within the default 10 s
    finally:
        env.close()


def test_dense_reward_adds_progress_on_top_of_the_bonuses():
    env = make("QuadX-Gates", flight_mode=7)
    try:
        rewards, info, _ = fly_course(env, seed=0)
        assert info.get("env_complete")
        # 5 x 100, plus 3 x the path's progress: from the spawn to gate 0 and gate to gate
        # (a few metres in all), so well above 500 but far below another bonus.
        assert 500.0 + 3.0 * 4.0 < rewards.sum() < 500.0 + 3.0 * 12.0
        assert np.count_nonzero(rewards > 50.0) == 5
    finally:
        env.close()


def test_crossing_beside_a_gate_gives_nothing_and_the_gate_stays_next():
    env = make("QuadX-Gates", flight_mode=7, sparse_reward=True)
    try:
        env.reset(seed=1)
        gates = env.gates
        centre, normal, yaw = gates.centres[0], gates.normals[0], gates.headings[0]
        # Beside the gate, on the side away from gate 1 so nothing else is near.
        side = -math.copysign(1.0, float((gates.centres[1] - centre) @ lateral(gates, 0)))
        beside = centre + 0.7 * side * lateral(gates, 0)
        *_, info = step_at(env, beside - 0.3 * normal, yaw)
        assert "missed_gate" not in info
        _, reward, terminated, _, info = step_at(env, beside + 0.3 * normal, yaw)
        assert reward == 0.0 and not terminated
        assert info["missed_gate"] and info["num_targets_reached"] == 0
        assert not info.get("collision")
        # Above the opening (clear of the top bar) does not count either.
        above = centre + 0.7 * np.array([0.0, 0.0, 1.0])
        step_at(env, above - 0.3 * normal, yaw)
        _, reward, _, _, info = step_at(env, above + 0.3 * normal, yaw)
        assert reward == 0.0 and info["missed_gate"] and info["num_targets_reached"] == 0
        # Through the opening, in one step from 0.3 m before to 0.3 m after: it counts, even
        # though the drone is never near the plane at the end of a step.
        step_at(env, centre - 0.3 * normal, yaw)
        _, reward, _, _, info = step_at(env, centre + 0.3 * normal, yaw)
        assert reward == 100.0 and info["num_targets_reached"] == 1
        assert "missed_gate" not in info and not info.get("collision")
    finally:
        env.close()


def test_flying_into_a_gate_bar_is_a_collision():
    env = make("QuadX-Gates", flight_mode=7)
    try:
        offset = 0.43  # m, the side bar's centre line (see gate.urdf)
        rewards, info, _ = fly_course(env, seed=2, offset=offset)
        assert info.get("collision") and env.termination
        assert rewards[-1] == -100.0 and info["num_targets_reached"] == 0
        gate = env.gates.ids[0]
        drone = env.drone
        assert pybullet.getClosestPoints(drone.Id, gate, 0.02,
                                         physicsClientId=drone.client_id)
        assert drone.state[3, 2] > 0.3  # hit the bar, not the ground
    finally:
        env.close()


# ----------------------------------------------------------------- the crossing rule
def test_crossing_rule():
    centre, normal = np.array([1.0, 2.0, 1.5]), np.array([0.0, 1.0, 0.0])
    half = 0.4

    def outcome(start, end):
        return crossing(centre + start, centre + end, centre, normal, half, half)

    assert outcome([0.1, -0.2, 0.1], [0.0, 0.3, -0.1]) == PASSED
    assert outcome([0.0, -5.0, 0.0], [0.0, 5.0, 0.0]) == PASSED  # fast: one long step
    assert outcome([0.0, -0.2, 0.0], [0.0, 0.0, 0.0]) == PASSED  # ends on the plane
    assert outcome([0.0, 0.2, 0.0], [0.0, -0.2, 0.0]) == NOT_CROSSED  # backward
    assert outcome([0.0, -0.3, 0.0], [0.0, -0.1, 0.0]) == NOT_CROSSED  # not there yet
    # Lateral is x here (normal +y turned +90 degrees is -x); both sides and above miss.
    assert outcome([-0.5, -0.2, 0.0], [-0.5, 0.2, 0.0]) == MISSED
    assert outcome([0.5, -0.2, 0.0], [0.5, 0.2, 0.0]) == MISSED
    assert outcome([0.0, -0.2, 0.45], [0.0, 0.2, 0.45]) == MISSED
    # The segment's crossing point decides, not its ends: out, in, out across the plane.
    assert outcome([-0.9, -0.1, 0.0], [0.9, 0.1, 0.0]) == PASSED


def test_gates_count_only_in_order():
    env = make("QuadX-Gates", sparse_reward=True)
    try:
        env.reset(seed=3)
        gates = env.gates
        through = [(gates.centres[i] - 0.3 * gates.normals[i],
                    gates.centres[i] + 0.3 * gates.normals[i]) for i in range(gates.num_gates)]
        assert gates.update(*through[1], sparse=True) == (0.0, False)  # gate 1 first
        assert gates.update(*through[0][::-1], sparse=True) == (0.0, False)  # gate 0 backward
        assert gates.index == 0
        assert gates.update(*through[0], sparse=True) == (100.0, False)
        assert gates.update(*through[0], sparse=True) == (0.0, False)  # gate 0 again
        assert gates.update(*through[1], sparse=True) == (100.0, False)
        assert gates.index == 2
        # One move through two gates in order passes both.
        assert gates.update(through[2][0], through[3][1], sparse=True)[0] == 200.0
    finally:
        env.close()


# ----------------------------------------------------------------- observation
def gate_pixels(image: np.ndarray) -> int:
    """Orange (gate-coloured) pixels of a (4, H, W) image: red high, blue low."""
    red, green, blue = (image[k].astype(int) for k in range(3))
    return int(np.count_nonzero((red > 120) & (red - blue > 90) & (red - green > 40)))


def test_camera_image_shows_the_gate_ahead():
    env = make("QuadX-Gates", flight_mode=7, camera_resolution=(48, 80))
    try:
        observation, _ = env.reset(seed=4)
        image = observation["rgba_cam"]
        assert image.shape == (4, 48, 80) and image.dtype == np.uint8
        assert env.observation_space["rgba_cam"].contains(image)
        assert np.all(image[3] == 255) and image[:3].std() > 10.0
        gates = env.gates
        centre, normal, yaw = gates.centres[0], gates.normals[0], gates.headings[0]
        facing, *_ = step_at(env, centre - 1.0 * normal, yaw)
        # The drone's latest image is the observation, channel first.
        np.testing.assert_array_equal(facing["rgba_cam"], env.drone.rgbaImg.transpose(2, 0, 1))
        away, *_ = step_at(env, centre - 1.0 * normal, yaw + math.pi)
        assert gate_pixels(facing["rgba_cam"]) > 0.05 * 48 * 80
        assert gate_pixels(away["rgba_cam"]) < 0.2 * gate_pixels(facing["rgba_cam"])
        # Each step's image is a new array.
        assert facing["rgba_cam"] is not away["rgba_cam"]
    finally:
        env.close()


def test_target_deltas_are_the_remaining_gates_in_the_body_frame():
    env = make("QuadX-Gates", flight_mode=7)
    try:
        env.reset(seed=6)
        gates = env.gates
        position = gates.centres[0] - 0.5 * gates.normals[0]
        yaw = gates.headings[0] + 0.3
        observation, *_ = step_at(env, position, yaw)
        deltas = observation["target_deltas"]
        drone = env.drone
        assert deltas.shape == (5, 4)
        expected = (gates.centres - drone.state[3]) @ drone.rotation_matrix
        np.testing.assert_allclose(deltas[:, :3], expected)
        np.testing.assert_allclose(deltas[0, 3], gates.headings[0] - drone.state[1, 2],
                                   atol=1e-12)
        step_at(env, gates.centres[0] + 0.3 * gates.normals[0], yaw)
        observation, *_ = step_at(env, gates.centres[0] + 0.3 * gates.normals[0], yaw)
        assert observation["target_deltas"].shape == (4, 4)
    finally:
        env.close()


# ----------------------------------------------------------------- the course
def test_reset_moves_the_gates_without_adding_bodies():
    env = make("QuadX-Gates")
    try:
        client = env.drone.client_id
        env.reset(seed=10)
        n_bodies = pybullet.getNumBodies(physicsClientId=client)
        first = env.gates.centres.copy()
        for gate, centre in zip(env.gates.ids, first):
            position, _ = pybullet.getBasePositionAndOrientation(gate, physicsClientId=client)
            np.testing.assert_allclose(position, centre)
        env.reset(seed=11)
        assert pybullet.getNumBodies(physicsClientId=client) == n_bodies
        assert np.abs(env.gates.centres - first).max() > 0.1
        position, orientation = pybullet.getBasePositionAndOrientation(env.gates.ids[2],
                                                                       physicsClientId=client)
        np.testing.assert_allclose(position, env.gates.centres[2])
        np.testing.assert_allclose(pybullet.getEulerFromQuaternion(orientation)[2],
                                   env.gates.headings[2], atol=1e-9)
        env.reset(seed=10)
        np.testing.assert_array_equal(env.gates.centres, first)
    finally:
        env.close()


def test_every_drawn_course_is_passable_and_inside_the_dome():
    rng = np.random.default_rng(0)
    start, max_angle = np.array([0.0, 0.0, 1.0]), math.pi / 6
    for _ in range(200):
        centres, headings = draw_course(rng, 5, start, 0.0, 1.2, 1.6, max_angle)
        normals = np.stack([np.cos(headings), np.sin(headings), np.zeros(5)], axis=1)
        previous = np.vstack([start, centres[:-1]])
        previous_normals = np.vstack([[1.0, 0.0, 0.0], normals[:-1]])
        legs = centres - previous
        spacing = np.hypot(legs[:, 0], legs[:, 1])
        assert np.all((spacing >= 1.2) & (spacing <= 1.6))
        # Each gate lies ahead of the previous gate (or the spawn heading), and the
        # previous one lies behind it: passing one leaves the drone facing the next.
        cos_limit = math.cos(max_angle) - 1e-9
        assert np.all(np.einsum("ij,ij->i", legs, previous_normals) / spacing >= cos_limit)
        assert np.all(np.einsum("ij,ij->i", legs, normals) / spacing >= cos_limit)
        assert np.all((centres[:, 2] >= MIN_GATE_HEIGHT) & (centres[:, 2] <= MAX_GATE_HEIGHT))
        assert np.all(np.abs(np.diff(np.r_[1.0, centres[:, 2]])) <= MAX_HEIGHT_STEP + 1e-12)
        assert np.linalg.norm(centres, axis=1).max() <= 10.0 - COURSE_MARGIN
        assert np.all(np.abs(headings) <= math.pi)


@pytest.mark.parametrize("options, match", [
    ({"num_targets": 8, "flight_dome_size": 10.0}, "beyond flight_dome_size"),
    ({"min_gate_distance": 2.0, "max_gate_distance": 1.5}, "max_gate_distance"),
    ({"max_gate_angle": 1.2}, "max_gate_angle"),
    ({"num_targets": 0}, "num_targets"),
    ({"camera_resolution": (64,)}, "camera_resolution"),
    ({"drone_options": {"camera_resolution": (32, 32)}}, "camera_resolution"),
])
def test_bad_options_raise(options, match):
    with pytest.raises(ValueError, match=match):
        make("QuadX-Gates", **options)
