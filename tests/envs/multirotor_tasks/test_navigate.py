"""Multirotor-Navigate: its rules against their closed forms (plain Python and compiled), the
goal's redraw away from trunks and the curriculum's layout draw, the LiDAR sectors of the
observation, real crashes into trunks and the floor on both engines, the curriculum and the
Navigate options' errors. (check_env, the spaces' shapes, seeding and the twin/VectorEnv
step-by-step agreement run for every task in test_multirotor_vector_env.py.)"""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.batch.obstacles import empty_pool, layout_world
from pyflyt_like.batch.sensors import reset_sensor_worlds
from pyflyt_like.batch.world_random import next_uniform
from pyflyt_like.common.multirotor_model import load_multirotor_model
from pyflyt_like.common.rotations import quat_to_matrix
from pyflyt_like.envs.multirotor_tasks import kernels, vector_env
from pyflyt_like.envs.multirotor_tasks.navigate_world import (
    DEFAULT_SECTORS,
    MAX_POOL_TREES,
    default_lidar,
    level_densities,
    navigate_pool,
    navigate_settings,
    pool_trees,
    with_navigate_lidar,
)
from pyflyt_like.envs.multirotor_tasks.options import task_options
from pyflyt_like.envs.multirotor_tasks.parameters import task_parameters
from pyflyt_like.envs.multirotor_tasks.twin_env import MultirotorTwinEnv
from pyflyt_like.envs.multirotor_tasks.vector_env import MultirotorVectorEnv
from pyflyt_like.rules import multirotor_tasks as rules
from pyflyt_like.rules import navigate
from pyflyt_like.worlds import Cylinder, Forest, World, pack_layouts

from ._factories import make_twin, make_vec

UPRIGHT, UPSIDE_DOWN = 1.0, -1.0  # the body z axis's world z component
BOTH = pytest.mark.parametrize("step", [rules.score_step, kernels.score_step],
                               ids=["python", "compiled"])
# Full pitch forward (nose down, towards body +x) with a little more than the hover thrust:
# the drone keeps roughly its height and flies straight on at its start heading.
FORWARD = np.array([0.0, 1.0, 0.0, 0.2], np.float32)
SECTORS = DEFAULT_SECTORS  # 16, of the default 64 beams: 4 beams each
# The default LiDAR without noise or dropout: readings are the true ranges.
IDEAL_LIDAR = {"lidar": {**default_lidar(50), "noise_per_metre": 0.0, "dropout": 0.0}}


def play(step, pos, up_z=UPRIGHT, target=(20.0, 0.0, 1.5), previous=20.0, crashed=False,
         vel=(0.0, 0.0, 0.0), clearance=navigate.CLEARANCE_MARGIN):
    """``step``'s (reward, terminated, distance, arrived, landed) of one Navigate state (by
    default at rest, no trunk near)."""
    return step(rules.NAVIGATE, np.asarray(pos, float), up_z, np.asarray(vel, float),
                np.asarray(target, float), np.zeros(9), 1.0, previous, crashed, clearance)


# ----------------------------------------------------------------------------------- rules
@BOTH
def test_progress_pays_a_reward_per_metre_closer(step):
    reward, terminated, distance, arrived, _ = play(step, (1.0, 0.0, 1.5), previous=19.5)
    assert distance == pytest.approx(19.0)
    assert reward == pytest.approx(navigate.PROGRESS_GAIN * 0.5) and reward == pytest.approx(0.5)
    assert not terminated and not arrived
    reward, *_ = play(step, (0.0, 0.0, 1.5), previous=19.5)  # backwards: a negative reward
    assert reward == pytest.approx(-0.5)


@BOTH
def test_speed_past_cruise_costs_per_metre_per_second(step):
    # 1 m of progress at 2, 3 and 5 m/s: the last pays 0.05 per m/s above 3
    for speed, cost in ((2.0, 0.0), (3.0, 0.0), (5.0, 0.1)):
        vel = (0.0, speed * 0.6, speed * 0.8)  # any direction: the speed's norm counts
        reward, terminated, *_ = play(step, (1.0, 0.0, 1.5), previous=20.0, vel=vel)
        assert reward == pytest.approx(1.0 - cost) and not terminated
    assert navigate.CRUISE_SPEED == 3.0 and navigate.OVERSPEED_COST == 0.05


@BOTH
def test_a_trunk_nearer_than_the_margin_costs_linearly_up_to_contact(step):
    costs = [-play(step, (1.0, 0.0, 1.5), previous=19.0, clearance=c)[0]
             for c in (0.0, 0.125, 0.25, 0.5, 3.0, math.inf)]
    assert costs == pytest.approx([0.2, 0.15, 0.1, 0.0, 0.0, 0.0])
    assert navigate.CLEARANCE_MARGIN == 0.5 and navigate.CLEARANCE_COST == 0.2
    assert not play(step, (1.0, 0.0, 1.5), previous=19.0, clearance=0.0)[1]  # no ending


@BOTH
def test_arrival_within_one_metre_pays_ten_and_ends(step):
    goal = np.array([12.0, -16.0, 1.5])  # 20 m away
    inside = goal - np.array([0.0, 0.0, 0.99])
    reward, terminated, distance, arrived, _ = play(step, inside, target=goal, previous=1.5)
    assert distance == pytest.approx(0.99)
    assert reward == pytest.approx(1.5 - 0.99 + 10.0) and terminated and arrived
    outside = goal + np.array([1.01, 0.0, 0.0])
    reward, terminated, distance, arrived, _ = play(step, outside, target=goal, previous=1.5)
    assert reward == pytest.approx(1.5 - 1.01) and not terminated and not arrived


@BOTH
def test_a_crash_costs_ten_and_ends(step):
    reward, terminated, _, arrived, _ = play(step, (3.0, 0.0, 1.5), previous=17.2, crashed=True)
    assert reward == pytest.approx(0.2 - 10.0) and terminated and not arrived
    # a crash at the goal: the bonus and the penalty both count
    reward, terminated, _, arrived, _ = play(step, (19.5, 0.0, 1.5), previous=0.7, crashed=True)
    assert reward == pytest.approx(0.2 + 10.0 - 10.0) and terminated and arrived


@BOTH
def test_leaving_the_volume_or_turning_upside_down_costs_ten_and_ends(step):
    # the previous distance is the new one: no progress, the reward is the penalty alone
    def ending(pos, up_z=UPRIGHT):
        previous = float(np.linalg.norm(np.subtract((20.0, 0.0, 1.5), pos)))
        reward, terminated, *_ = play(step, pos, up_z=up_z, previous=previous)
        return reward, terminated

    penalty = (-navigate.FAILURE_PENALTY, True)
    ends = [ending(pos) for pos in ((24.01, 0.0, 1.5), (-24.01, 0.0, 1.5), (0.0, 24.01, 1.5),
                                    (0.0, -24.01, 1.5), (0.0, 0.0, 4.01))]
    assert ends == [pytest.approx(penalty)] * 5 and navigate.FAILURE_PENALTY == 10.0
    stays = [ending(pos) for pos in ((23.99, -23.99, 1.5), (0.0, 0.0, 3.99),
                                     (0.0, 0.0, 0.01))]  # low is no ending here
    assert stays == [pytest.approx((0.0, False))] * 3
    assert ending((0.0, 0.0, 1.5), up_z=UPSIDE_DOWN) == pytest.approx(penalty)
    assert ending((0.0, 0.0, 1.5), up_z=0.01) == pytest.approx((0.0, False))
    # a crash out of the volume is one failure: one penalty
    reward, terminated, *_ = play(step, (0.0, 0.0, 4.5), previous=float(np.hypot(20, 3)),
                                  crashed=True)
    assert reward == pytest.approx(-navigate.FAILURE_PENALTY) and terminated


# Channel 0 and 1 of 8 beams [m] (max range 12): sector minima by hand below.
HAND_RANGES = np.array([[5.0, 4.0, 9.0, 9.0, 14.0, 12.5, 3.0, 11.0],
                        [6.0, 8.0, 2.0, 9.5, 15.0, 13.0, 12.0, 1.0]])


@pytest.mark.parametrize("sector_range", [navigate.sector_range, kernels.sector_range],
                         ids=["python", "compiled"])
def test_sectors_min_pool_every_channel_and_cap_at_max_range(sector_range):
    flat = HAND_RANGES.reshape(-1)  # channel after channel, as the engines lay them out
    four = [sector_range(flat, 8, 4, s, 12.0) for s in range(4)]
    # beams 0-1, 2-3, 4-5 (nothing nearer than 12.5: max range), 6-7
    assert four == [4.0, 2.0, 12.0, 1.0]
    # 8 beams in 3 sectors: beams s 8 // 3 to (s + 1) 8 // 3 - 1, i.e. 0-1, 2-4, 5-7
    assert [sector_range(flat, 8, 3, s, 12.0) for s in range(3)] == [4.0, 2.0, 1.0]
    assert [sector_range(flat, 8, 8, s, 12.0) for s in range(8)] == [
        5.0, 4.0, 2.0, 9.0, 12.0, 12.0, 3.0, 1.0]
    assert sector_range(flat, 8, 1, 0, 12.0) == 1.0


@pytest.mark.parametrize("put_sectors", [rules.put_sectors, kernels.put_sectors],
                         ids=["python", "compiled"])
def test_put_sectors_fills_the_last_entries_with_inverse_ranges(put_sectors):
    out = np.full(10, -7.0)
    low = np.concatenate((np.full(6, -1e9), np.zeros(4)))
    high = np.concatenate((np.full(6, 1e9), np.ones(4)))
    put_sectors(HAND_RANGES.reshape(-1), 8, 12.0, np.zeros(10), 0.0, low, high, out, 6)
    np.testing.assert_array_equal(out[:6], -7.0)  # the entries before are left alone
    # nearest 4, 2, 12 (max range) and 1 m: SECTOR_NEAR (0.5 m) over each
    np.testing.assert_allclose(out[6:], [0.125, 0.25, 0.5 / 12.0, 0.5])


@pytest.mark.parametrize("sector_value", [navigate.sector_value, kernels.sector_value],
                         ids=["python", "compiled"])
def test_a_sector_reads_its_inverse_range_capped_at_one(sector_value):
    assert navigate.SECTOR_NEAR == 0.5
    assert sector_value(12.0) == 0.5 / 12.0  # free space to the default LiDAR's range
    assert sector_value(2.0) == 0.25
    assert sector_value(1.0) == 0.5
    assert sector_value(0.5) == 1.0  # at SECTOR_NEAR
    assert sector_value(0.15) == 1.0  # nearer: capped (the default LiDAR's min_range)


@pytest.mark.parametrize("start_episode", [rules.start_episode, kernels.start_episode],
                         ids=["python", "compiled"])
def test_start_and_goal_from_given_uniforms(start_episode):
    u = np.array([0.25, 0.75, 0.0, 1.0, 0.5, 0.375] + [0.9] * (rules.START_DRAWS - 6))
    target, curve, pos, euler = np.zeros(3), np.zeros(9), np.zeros(3), np.zeros(3)
    start_episode(rules.NAVIGATE, u, target, curve, pos, euler)
    offset = navigate.START_OFFSET
    np.testing.assert_allclose(pos, (-0.5 * offset, 0.5 * offset, navigate.FLIGHT_HEIGHT))
    np.testing.assert_allclose(euler, (-rules.START_TILT, rules.START_TILT, 0.0), atol=1e-15)
    heading = 2.0 * math.pi * 0.375  # the goal: 20 m away on the heading 2 pi u[5]
    np.testing.assert_allclose(target, (20.0 * math.cos(heading), 20.0 * math.sin(heading),
                                        1.5))
    for u5 in (0.0, 0.25, 0.9):
        goal = np.zeros(3)
        kernels.place_goal(u5, goal)
        assert np.hypot(*goal[:2]) == pytest.approx(navigate.GOAL_DISTANCE)
        assert math.atan2(goal[1], goal[0]) % (2 * math.pi) == pytest.approx(
            2 * math.pi * u5, abs=1e-12)


def test_arrival_counts_a_goal_and_draws_no_new_one():
    params = _navigate_params(0)
    task = kernels.zeros_arrays(1, 4, params.observation_low.shape[0], 0)
    task.target[0] = (20.0, 0.0, 1.5)
    task.distance[0] = 1.2
    level = np.array([0.0, 0.0, 0.0, 1.0])
    reward, terminated = kernels.score_world(np.array([19.5, 0.0, 1.5]), level, np.zeros(3),
                                             False, task, params, 0, tuple(empty_pool()))
    assert reward == pytest.approx(0.7 + 10.0) and terminated
    assert task.reached[0] == 1  # the info's goal_reached
    np.testing.assert_array_equal(task.target[0], (20.0, 0.0, 1.5))  # Reach would redraw it


def test_the_clearance_is_the_layouts_distance_from_the_drone():
    # a lone trunk of radius 0.2 at (5, 0): drones 0.1 m, 0.3 m and 1 m from its surface
    pool = tuple(pack_layouts([World(), World([Cylinder(5.0, 0.0, 0.2, 6.0)])]))
    params = _navigate_params(1)
    level = np.array([0.0, 0.0, 0.0, 1.0])
    for layout, x, cost in ((1, 4.7, 0.2 * 0.8), (1, 4.5, 0.2 * 0.4), (1, 3.8, 0.0),
                            (0, 4.7, 0.0)):  # layout 0 holds nothing
        task = kernels.zeros_arrays(1, 4, params.observation_low.shape[0], 0)
        task.target[0] = (x, -20.0, 1.5)
        task.distance[0] = 20.0  # no progress
        task.layout[0] = layout
        reward, terminated = kernels.score_world(np.array([x, 0.0, 1.5]), level, np.zeros(3),
                                                 False, task, params, 0, pool)
        assert reward == pytest.approx(-cost, abs=1e-12) and not terminated


# ------------------------------------------------------------------------------ draw_start
def _navigate_params(level_size: int) -> kernels.TaskParams:
    """The VectorEnv's TaskParams of Navigate (the same numba types: the cached kernels),
    with ``level_size`` layouts per curriculum level."""
    options = with_navigate_lidar(rules.NAVIGATE, task_options({}))
    model = load_multirotor_model(options.drone_model)
    params, _, _ = task_parameters(rules.NAVIGATE, options, model, 9.81)
    return params._replace(level_size=level_size)


def _advanced(stream: int, draws: int) -> tuple[np.ndarray, list[float]]:
    """A world's stream seeded ``stream`` after ``draws`` uniforms, and those uniforms."""
    streams = np.array([stream], np.uint64)
    return streams, [next_uniform(streams, 0) for _ in range(draws)]


def _draw(worlds: list[World], level_size: int, level: int = 0, stream: int = 12345):
    """World 0's task arrays after one draw_start from ``stream`` among ``worlds``."""
    params = _navigate_params(level_size)
    task = kernels.zeros_arrays(1, 4, params.observation_low.shape[0], 0)
    task.streams[:] = stream
    task.level[:] = level
    kernels.draw_start(task, params, 0, tuple(pack_layouts(worlds)))
    return task


def test_a_goal_on_a_trunk_is_redrawn_clear_of_every_trunk():
    free = _draw([World()], 1)
    first_goal = free.target[0].copy()
    # the start's uniforms and the layout's: nothing more where the goal is clear
    streams, _ = _advanced(12345, rules.START_DRAWS + 1)
    assert free.streams[0] == streams[0] and free.layout[0] == 0
    trunk = Cylinder(float(first_goal[0]), float(first_goal[1]), 0.3, 6.0)
    far = Cylinder(float(-first_goal[0]), float(-first_goal[1]), 0.3, 6.0)
    forest = World([trunk, far])
    blocked = _draw([forest], 1)
    np.testing.assert_array_equal(blocked.start_pos, free.start_pos)  # the same start
    goal = blocked.target[0]
    assert not np.allclose(goal, first_goal)
    assert forest.distance(goal) >= navigate.GOAL_CLEARANCE
    assert np.hypot(*goal[:2]) == pytest.approx(navigate.GOAL_DISTANCE)
    assert goal[2] == navigate.FLIGHT_HEIGHT
    # the closed form: the first heading of the stream's next uniforms whose goal is clear
    streams, _ = _advanced(12345, rules.START_DRAWS + 1)
    expected = np.zeros(3)
    for _ in range(navigate.GOAL_TRIES):
        kernels.place_goal(next_uniform(streams, 0), expected)
        if forest.distance(expected) >= navigate.GOAL_CLEARANCE:
            break
    np.testing.assert_array_equal(goal, expected)
    assert blocked.streams[0] == streams[0]  # one uniform per heading tried


def test_with_every_heading_blocked_the_last_goal_drawn_is_kept():
    wall = World([Cylinder(0.0, 0.0, 30.0, 6.0)])  # every goal 20 m out is inside it
    task = _draw([wall], 1)
    streams, _ = _advanced(12345, rules.START_DRAWS + 1)
    uniforms = [next_uniform(streams, 0) for _ in range(navigate.GOAL_TRIES)]
    expected = np.zeros(3)
    kernels.place_goal(uniforms[-1], expected)
    np.testing.assert_array_equal(task.target[0], expected)
    assert task.streams[0] == streams[0]  # GOAL_TRIES redraws, no more


def test_the_layout_is_drawn_within_the_levels_block():
    size, levels = 4, 3
    worlds = [World()] * (size * levels)
    for level in range(levels):
        seen = set()
        for stream in range(1, 41):
            task = _draw(worlds, size, level, stream)
            _, u = _advanced(stream, rules.START_DRAWS + 1)
            layout = int(task.layout[0])
            assert layout == level * size + int(u[-1] * size)  # the 12th uniform
            seen.add(layout)
        assert seen == set(range(level * size, (level + 1) * size))


# ------------------------------------------------------------------------------ VectorEnv
def _ring_ranges(world: World, pos: np.ndarray, quat: np.ndarray, beams: int,
                 max_range: float) -> np.ndarray:
    """The closed form of a one-channel 360-degree ring's readings without noise: beam
    ``j`` at body azimuth ``-180 + j 360 / beams`` deg, cast from ``pos`` (the mounting
    point is the centre of mass) against ``world`` (no floor within reach here)."""
    rotation = np.reshape(quat_to_matrix(*quat), (3, 3))
    ranges = np.empty(beams)
    for j in range(beams):
        azimuth = math.radians(-180.0 + j * 360.0 / beams)
        direction = rotation @ (math.cos(azimuth), math.sin(azimuth), 0.0)
        ranges[j] = min(world.ray_distance(pos, direction, max_range), max_range)
    return ranges


def test_sectors_are_the_min_pooled_lidar_of_the_body_frame_ring(monkeypatch):
    # One trunk 3 m ahead along +x (starts head within pi/4 of it); nothing else within
    # the LiDAR's 12 m (tilts <= 0.1 rad: the ring meets the floor beyond 15 m)
    trunk = World([Cylinder(3.0, 0.0, 0.2, 6.0)])
    monkeypatch.setattr(vector_env, "navigate_pool", lambda settings: pack_layouts([trunk]))
    envs = make_vec("Navigate", 6, world_layouts=1, sensors=IDEAL_LIDAR)
    try:
        observations, _ = envs.reset(seed=5)
        assert observations.shape == (6, 3 + 15 + 4 + SECTORS)
        assert envs.observation_space.contains(observations)
        lidar = envs.sim.read_sensors()["lidar"]
        np.testing.assert_array_equal(lidar["time"], 0.0)  # sampled at the reset
        ranges = lidar["ranges"][:, 0, 0]  # (W, 64), one channel
        for w in range(6):
            exact = _ring_ranges(trunk, envs.sim.pos[w, 0], envs.sim.quat[w, 0], 64, 12.0)
            np.testing.assert_allclose(ranges[w], exact, atol=1e-9)
            assert 0 < np.sum(exact < 12.0) < 8  # the trunk, seen by a few beams ahead
            pooled = np.minimum(1.0, 0.5 / exact.reshape(SECTORS, 64 // SECTORS).min(axis=1))
            np.testing.assert_allclose(observations[w, -SECTORS:], pooled, rtol=1e-6)
            # beam j looks at body azimuth -180 + 5.625 j deg: the beam nearest the
            # trunk's direction (starts head within pi/4 of +x) is in a sector that sees it
            rotation = np.reshape(quat_to_matrix(*envs.sim.quat[w, 0]), (3, 3))
            ahead = rotation.T @ (np.array([3.0, 0.0, 1.5]) - envs.sim.pos[w, 0])
            azimuth = math.degrees(math.atan2(ahead[1], ahead[0]))
            nearest = round((azimuth + 180.0) / 5.625) % 64
            assert pooled[nearest // 4] > 0.5 / 12.0 and 20 <= nearest <= 44
    finally:
        envs.close()


def test_sectors_follow_the_default_lidar_every_agent_step():
    envs = make_vec("Navigate", 4, world_density=0.3)
    try:
        observations, infos = envs.reset(seed=2)
        assert set(infos) == {"distance", "_distance", "goal_reached", "_goal_reached"}
        for step in range(1, 4):
            lidar = envs.sim.read_sensors()["lidar"]
            np.testing.assert_allclose(lidar["time"], (step - 1) * 0.02, atol=1e-12)
            nearest = lidar["ranges"][:, 0, 0].reshape(4, SECTORS, -1).min(axis=2)
            np.testing.assert_array_equal(observations[:, -SECTORS:],
                                          np.minimum(1.0, 0.5 / nearest).astype(np.float32))
            assert envs.observation_space.contains(observations)
            observations, *_ = envs.step(np.tile(FORWARD, (4, 1)))
        # the forest is in sight: some sector of some world sees a trunk within 6 m
        assert observations[:, -SECTORS:].max() > 0.5 / 6.0
        # the LiDAR is its only sensor: its kernels compile no point sensor's code
        assert envs.sim._sensing == (None, True)
        sensing = {str(signature[8]) for signature in kernels.task_rows.signatures}
        assert "Tuple(none, bool)" in sensing
        # (the reset called from Python: its signatures are listed when loaded from the
        # cache too, where a function compiled only inside another kernel is never loaded)
        resets = {str(signature[3:5]) for signature in reset_sensor_worlds.signatures}
        assert "(none, bool)" in resets
    finally:
        envs.close()


def _heading_frame_goal(envs) -> np.ndarray:
    """(W, 3) each world's goal relative to its drone in the drone's heading frame (x
    along the horizontal projection of the body x axis, y to its left, z up) [m]."""
    goals = np.empty((envs.num_envs, 3))
    for w in range(envs.num_envs):
        r = quat_to_matrix(*envs.sim.quat[w, 0])
        c, s = np.array((r[0], r[3])) / math.hypot(r[0], r[3])
        dx, dy, dz = envs.task.target[w] - envs.sim.pos[w, 0]
        goals[w] = (c * dx + s * dy, c * dy - s * dx, dz)
    return goals


@pytest.mark.parametrize("observe", [rules.observe, kernels.observe], ids=["python",
                                                                           "compiled"])
def test_the_goal_is_observed_in_the_heading_frame(observe):
    size = 3 + 15 + 4
    high = np.full(size, 1e9)

    def goal_features(target, yaw, pitch=0.0):
        # yaw then pitch (body-to-world Rz(yaw) Ry(pitch)), as a quaternion (x, y, z, w)
        cy, sy, cp, sp = (math.cos(yaw / 2), math.sin(yaw / 2), math.cos(pitch / 2),
                          math.sin(pitch / 2))
        quat = np.array((-sy * sp, cy * sp, sy * cp, cy * cp))
        out = np.zeros(size)
        observe(rules.NAVIGATE, np.array([1.0, 2.0, 1.5]), quat, np.zeros(3), np.zeros(3),
                None, None, np.asarray(target, float), np.zeros(9), 0.0, np.zeros(4),
                np.zeros(size), 0.0, -high, high, out)
        return out[:3]

    # facing +y: a goal 5 m along +y is ahead, one 5 m along +x is to the right
    np.testing.assert_allclose(goal_features((1.0, 7.0, 1.5), math.pi / 2), (5, 0, 0),
                               atol=1e-12)
    np.testing.assert_allclose(goal_features((6.0, 2.0, 2.5), math.pi / 2), (0, -5, 1),
                               atol=1e-12)
    # the pitch leaves the heading as it is; the height difference stays vertical
    np.testing.assert_allclose(goal_features((4.0, 6.0, 0.5), 0.0, 0.4), (3, 4, -1),
                               atol=1e-12)


def test_the_goal_features_are_the_true_relative_goal():
    envs = make_vec("Navigate", 8)
    try:
        observations, _ = envs.reset(seed=0)
        # the policy must see the goal's direction from the start, not a clipped one
        goals = _heading_frame_goal(envs)
        assert np.abs(goals[:, :2]).max() > 10.0  # beyond the other tasks' bound
        np.testing.assert_allclose(observations[:, :3], goals, atol=1e-5)
    finally:
        envs.close()


def _first_trunk_crash(envs, infos: dict, actions: np.ndarray, steps: int):
    """Fly ``actions`` from the reset that gave ``infos`` until a world ends on a trunk:
    (world, step, reward, distance before, distance after), or None."""
    for step in range(steps):
        before = infos["distance"]
        _, rewards, terminated, truncated, infos = envs.step(actions)
        for w in np.flatnonzero(terminated):
            pos = envs.sim.pos[w, 0]
            if pos[2] > 0.3 and envs.sim.world_of(w).distance(pos) < envs.sim.collision_radius:
                return w, step, rewards[w], before[w], infos["distance"][w]
        if (terminated | truncated).all():
            return None
    return None


def test_a_drone_flown_into_a_tree_crashes_and_the_next_step_restarts_it():
    envs = make_vec("Navigate", 16)
    try:
        _, infos = envs.reset(seed=0)
        crash = _first_trunk_crash(envs, infos, np.tile(FORWARD, (16, 1)), 150)
        assert crash is not None, "no drone of 16 met a trunk flying 150 steps straight on"
        w, _, reward, before, after = crash
        assert envs.sim.crashed[w, 0]
        assert np.all(envs.sim.vel[w, 0] == 0.0)  # stopped where it touched: no overspeed
        clearance = envs.sim.world_of(w).distance(envs.sim.pos[w, 0])
        assert reward == pytest.approx(
            before - after - navigate.FAILURE_PENALTY
            - navigate.CLEARANCE_COST * (1.0 - clearance / navigate.CLEARANCE_MARGIN), abs=1e-9)
        observations, rewards, terminated, truncated, _ = envs.step(np.tile(FORWARD, (16, 1)))
        assert rewards[w] == 0.0 and not terminated[w] and not truncated[w]
        assert not envs.sim.crashed[w, 0]
        np.testing.assert_allclose(envs.sim.pos[w, 0, 2], navigate.FLIGHT_HEIGHT)
        assert np.all(np.abs(envs.sim.pos[w, 0, :2]) <= navigate.START_OFFSET)
        assert envs.observation_space.contains(observations)
    finally:
        envs.close()


def test_an_empty_forest_shows_free_space_in_every_sector():
    envs = make_vec("Navigate", 3, world_density=0.0, lidar_sectors=8)
    try:
        observations, _ = envs.reset(seed=1)
        assert observations.shape == (3, 3 + 15 + 4 + 8)
        # max range, or dropped: SECTOR_NEAR over the default LiDAR's 12 m
        np.testing.assert_array_equal(observations[:, -8:], np.float32(0.5 / 12.0))
        assert envs.sim.layout_pool.counts.sum() == 0
    finally:
        envs.close()


def test_curriculum_levels_hold_denser_forests_and_set_curriculum_level_picks_one():
    size, levels = 4, 3
    envs = make_vec("Navigate", 8, curriculum_levels=levels, world_layouts=size)
    try:
        pool = envs.sim.layout_pool
        assert pool.n_layouts == size * levels
        trees = pool.counts[:, 0].reshape(levels, size).mean(axis=1)
        densities = level_densities(0.1, levels)
        np.testing.assert_allclose(densities, (0.1 / 3, 0.2 / 3, 0.1))
        for level, density in enumerate(densities):
            forest = Forest(density=float(density), radius=(0.1, 0.3), height=6.0,
                            extent=50.0, clearing=2.0)
            assert trees[level] == pytest.approx(forest.expected_trees, rel=0.15)
        envs.reset(seed=0)
        assert np.all(envs.sim.world_layout < size)  # the VectorEnv starts at level 0
        envs.set_curriculum_level(2)
        assert np.all(envs.sim.world_layout < size)  # for the episodes that start next
        envs.reset()
        assert np.all((envs.sim.world_layout >= 2 * size) & (envs.sim.world_layout < 3 * size))
        per_env = np.array([0, 1, 2, 0, 1, 2, 0, 1])
        envs.set_curriculum_level(per_env)
        envs.reset()
        np.testing.assert_array_equal(envs.sim.world_layout // size, per_env)
        np.testing.assert_array_equal(envs.task.layout, envs.sim.world_layout)
        envs.set_curriculum_level(np.int64(0))
        envs.reset()
        assert np.all(envs.sim.world_layout < size)
        for w in range(8):
            assert envs.sim.world_of(w) == layout_world(pool, int(envs.sim.world_layout[w]))
    finally:
        envs.close()


@pytest.mark.parametrize("level, error, match", [
    (3, ValueError, r"level must be in \[0, 3\) \(curriculum_levels=3\), got 3"),
    (-1, ValueError, r"level must be in \[0, 3\)"),
    (np.array([0, 1, 3]), ValueError, r"level must be in \[0, 3\)"),
    (1.0, TypeError, r"level must be an int or a \(3,\) int array"),
    (True, TypeError, "level must be an int"),
    ("1", TypeError, "level must be an int"),
    (None, TypeError, "level must be an int"),
    (np.array([0, 1]), TypeError, r"a \(3,\) int array"),
])
def test_set_curriculum_level_refuses_bad_levels_and_changes_nothing(level, error, match):
    envs = make_vec("Navigate", 3, curriculum_levels=3, world_layouts=2)
    try:
        envs.set_curriculum_level(1)
        with pytest.raises(error, match=match):
            envs.set_curriculum_level(level)
        np.testing.assert_array_equal(envs.task.level, 1)
    finally:
        envs.close()


def test_set_curriculum_level_is_navigates_only():
    envs = make_vec("Hover", 2)
    try:
        with pytest.raises(ValueError, match="set_curriculum_level is Navigate's; Hover has no "
                                             "curriculum"):
            envs.set_curriculum_level(0)
    finally:
        envs.close()


@pytest.mark.parametrize("task, options, error, match", [
    ("Hover", dict(world_density=0.1), ValueError,
     r"\['world_density'\] are options of Navigate only, not of Hover"),
    ("Land", dict(lidar_sectors=8, world_seed=3), ValueError,
     r"\['lidar_sectors', 'world_seed'\] are options of Navigate only"),
    ("Navigate", dict(world_density=-0.1), ValueError, "world_density must be a finite "
                                                         "number >= 0"),
    ("Navigate", dict(world_density=float("nan")), ValueError, "world_density"),
    ("Navigate", dict(world_density="0.1"), TypeError, "world_density"),
    ("Navigate", dict(world_density=True), TypeError, "world_density"),
    ("Navigate", dict(world_density=float("inf")), ValueError, "world_density"),
    ("Navigate", dict(world_density=1e308), ValueError,
     r"world_density must be at most 2 trees/m\^2 \(MAX_DENSITY.*got 1e\+308"),
    ("Navigate", dict(curriculum_levels=0), ValueError, "curriculum_levels"),
    ("Navigate", dict(curriculum_levels=65), ValueError, "curriculum_levels must be a "
                                                          "positive integer <= 64"),
    ("Navigate", dict(curriculum_levels=2.0), TypeError, "curriculum_levels"),
    ("Navigate", dict(world_layouts=4097), ValueError, "world_layouts must be a positive "
                                                       "integer <= 4096"),
    # the pool is drawn at construction: at most about 10 s (64 x 4096 took minutes)
    ("Navigate", dict(world_density=2.5), ValueError,
     r"world_density must be at most 2 trees/m\^2 \(MAX_DENSITY"),
    ("Navigate", dict(world_density=40.0), ValueError, "world_density must be at most 2"),
    ("Navigate", dict(curriculum_levels=64, world_layouts=4096), ValueError,
     r"curriculum_levels=64 x world_layouts=4096 = 262144 forests, more than "
     r"MAX_POOL_LAYOUTS=4096"),
    ("Navigate", dict(curriculum_levels=2, world_layouts=2049, world_density=0.0), ValueError,
     "MAX_POOL_LAYOUTS=4096"),
    ("Navigate", dict(world_layouts=4096), ValueError,
     r"curriculum_levels=1 x world_layouts=4096 = 4096 forests of world_density up to 0\.1 "
     r"trees/m\^2 expect 1,018,853 trees, more than MAX_POOL_TREES=524,288"),
    ("Navigate", dict(world_density=2.0, world_layouts=106), ValueError, "MAX_POOL_TREES"),
    ("Navigate", dict(world_seed=-1), ValueError, "world_seed"),
    ("Navigate", dict(lidar_sectors=0), ValueError, "lidar_sectors"),
    ("Navigate", dict(lidar_sectors=True), TypeError, "lidar_sectors"),
    ("Navigate", dict(lidar_sectors=65), ValueError,
     r"lidar_sectors=65 must be at most the LiDAR's beams \(64\)"),
    ("Navigate", dict(sensors={"lidar": {**default_lidar(50), "beams": 8}}, lidar_sectors=9),
     ValueError, r"lidar_sectors=9 must be at most the LiDAR's beams \(8\)"),
    ("Navigate", dict(sensors={"imu": "default"}), ValueError,
     r'Navigate observes a LiDAR: sensors must include "lidar"'),
])
def test_bad_navigate_options_raise_naming_them(task, options, error, match):
    with pytest.raises(error, match=match):
        MultirotorVectorEnv(task, 2, **options)
    with pytest.raises(error, match=match):
        MultirotorTwinEnv(task, **options)


def test_the_pool_size_check_counts_the_trees_a_pool_draws():
    options = task_options({"curriculum_levels": 3, "world_layouts": 20,
                            "world_density": 0.2})
    settings = navigate_settings(rules.NAVIGATE, options)
    expected = pool_trees(0.2, 3, 20)  # (1 + 2 + 3) / 3 x 0.2 x 20 x 2487 m^2
    assert expected == pytest.approx(0.4 * 20 * (50.0**2 - math.pi * 2.0**2))
    drawn = int(navigate_pool(settings).counts[:, 0].sum())
    assert abs(drawn - expected) < 5.0 * math.sqrt(expected)


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    {"curriculum_levels": 64, "world_layouts": 64},     # 517 000 trees
    {"world_layouts": 2048},                            # 509 000 trees
    {"world_density": 2.0, "world_layouts": 105},       # 522 000 trees, the densest
    {"world_density": 0.0, "world_layouts": 4096},      # 4096 empty layouts
])
def test_the_largest_accepted_pools_stay_within_the_tree_budget(options):
    settings = navigate_settings(rules.NAVIGATE, task_options(options))
    budget = pool_trees(settings["world_density"], settings["curriculum_levels"],
                        settings["world_layouts"])
    assert budget <= MAX_POOL_TREES
    pool = navigate_pool(settings)  # 5-9 s on two cores (docs/vector_tasks.md)
    drawn = int(pool.counts[:, 0].sum())
    assert drawn <= budget + 5.0 * math.sqrt(budget) + 1


def test_the_default_lidar_is_mounted_unless_one_is_given():
    options = with_navigate_lidar(rules.NAVIGATE, task_options({}))
    assert options.sensors == {"lidar": {"preset": "default", "update_rate": 50}}
    lidar = options.sensor_params["lidar"]
    assert (lidar.channels, lidar.beams, lidar.max_range) == (1, 64, 12.0)
    # with observation="sensors", beside the default sensors
    sensed = with_navigate_lidar(rules.NAVIGATE, task_options({"observation": "sensors"}))
    assert set(sensed.sensors) == {"imu", "baro", "mag", "gnss", "lidar"}
    given = task_options({"sensors": IDEAL_LIDAR})
    assert with_navigate_lidar(rules.NAVIGATE, given) is given
    hover = task_options({})
    assert with_navigate_lidar(rules.HOVER, hover) is hover
    assert navigate_settings(rules.HOVER, hover) == {}
    assert navigate_settings(rules.NAVIGATE, options) == {
        "world_density": 0.1, "curriculum_levels": 1, "world_layouts": 16, "world_seed": 0,
        "lidar_sectors": 16}


# ----------------------------------------------------------------------------------- twin
def _bodies(twin) -> int:
    aviary = twin.unwrapped.sim.aviary
    return pybullet.getNumBodies(physicsClientId=aviary._client)


def test_the_twin_flies_the_vector_envs_layout_and_replaces_it_at_each_reset():
    envs = make_vec("Navigate", 1, curriculum_levels=2, world_layouts=3)
    twin = make_twin("Navigate", curriculum_levels=2, world_layouts=3)
    try:
        envs.set_curriculum_level(1)  # the twin flies the last level, the task's own
        layouts = set()
        for seed in (3, 4, 11):
            envs.reset(seed=seed)
            twin.reset(seed=seed)
            inner = twin.unwrapped
            layout = int(inner.task.layout[0])
            layouts.add(layout)
            assert layout == envs.sim.world_layout[0] and 3 <= layout < 6
            world = inner.sim.aviary.world
            assert world == layout_world(envs.sim.layout_pool, layout) == envs.sim.world_of(0)
            np.testing.assert_array_equal(inner.task.target, envs.task.target)
            # the floor, the drone and the trees: the last reset's bodies are gone
            assert _bodies(twin) == 2 + len(world) == 2 + len(inner.sim.aviary.world_body_ids)
        assert len(layouts) >= 2
    finally:
        envs.close()
        twin.close()


def test_a_twin_flown_into_a_tree_crashes_as_the_vector_env_does():
    envs = make_vec("Navigate", 1)
    twin = make_twin("Navigate")
    try:
        for seed in range(20):  # an episode of world 0 that ends on a trunk
            _, infos = envs.reset(seed=seed)
            crash = _first_trunk_crash(envs, infos, FORWARD[None], 150)
            if crash is not None:
                break
        assert crash is not None, "no seed of 20 sent the drone into a trunk"
        _, crash_step, vector_reward, _, _ = crash
        _, info = twin.reset(seed=seed)
        inner = twin.unwrapped
        ended = None
        for step in range(crash_step + 3):
            distance = info["distance"]
            _, reward, terminated, truncated, info = twin.step(FORWARD)
            if terminated or truncated:
                ended = step
                break
        assert terminated and inner.sim.crashed
        assert abs(ended - crash_step) <= 1
        # against a trunk of the layout (PyBullet's contacts come within its margin)
        world = inner.sim.aviary.world
        clearance = world.distance(inner.sim.pos)
        assert clearance < envs.sim.collision_radius + 0.03
        speed = float(np.linalg.norm(inner.sim.vel))
        assert reward == pytest.approx(
            distance - info["distance"] - 10.0
            - navigate.OVERSPEED_COST * max(0.0, speed - navigate.CRUISE_SPEED)
            - navigate.CLEARANCE_COST * max(0.0, 1.0 - clearance / navigate.CLEARANCE_MARGIN),
            abs=1e-9)
        assert reward == pytest.approx(vector_reward, abs=0.2)
    finally:
        envs.close()
        twin.close()


def test_a_fall_is_a_crash_and_a_slow_touchdown_is_not_on_both_engines():
    envs = make_vec("Navigate", 1)
    twin = make_twin("Navigate")
    try:
        # thrust 3 % below hover meets the floor at 0.9 m/s, 5 % below at 1.16 m/s: the
        # engines' crash speed is 1 m/s
        for thrust, crash in ((-0.05, True), (-0.03, False)):
            action = np.array([0.0, 0.0, 0.0, thrust], np.float32)
            envs.reset(seed=0)
            twin.reset(seed=0)
            touched = None
            for step in range(200):
                _, rewards, terminated, _, _ = envs.step(action[None])
                _, reward, twin_terminated, _, _ = twin.step(action)
                assert bool(terminated[0]) == twin_terminated
                if envs.sim.contact[0, 0] and touched is None:
                    touched = step
                if terminated[0] or (touched is not None and step > touched + 10):
                    break
            assert touched is not None
            assert bool(terminated[0]) == crash == twin.unwrapped.sim.crashed
            assert (rewards[0] < -9.0) == crash and (reward < -9.0) == crash
    finally:
        envs.close()
        twin.close()
