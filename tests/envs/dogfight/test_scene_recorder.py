"""DogfightRecorder: dogfight episodes written as Tacview ACMI files and read back."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.common.acmi import DEFAULT_REFERENCE_LATITUDE, read_acmi
from pyflyt_like.common.atomic_files import FileWriteError
from pyflyt_like.envs import MAFixedwingDogfightEnv
from pyflyt_like.envs.dogfight.scene_recorder import DogfightRecorder

from .._ma_checks import assert_parallel_api_clean

SPEED = 14.0  # m/s, the acrowing's spawn speed
ALTITUDE = 60.0  # m


def place(env, agent: str, position, yaw: float = 0.0, velocity=None) -> None:
    """Put ``agent``'s aircraft at ``position`` [m], level, heading ``yaw``, flying along
    its nose at SPEED (or at ``velocity`` [m/s])."""
    drone = env.drones[env.agent_index[agent]]
    client = env.aviary._client
    pybullet.resetBasePositionAndOrientation(
        drone.Id, list(position), pybullet.getQuaternionFromEuler((0.0, 0.0, yaw)),
        physicsClientId=client)
    if velocity is None:
        velocity = (SPEED * math.cos(yaw), SPEED * math.sin(yaw), 0.0)
    pybullet.resetBaseVelocity(drone.Id, list(velocity), (0, 0, 0), physicsClientId=client)
    drone.update_state()


def level(env) -> dict:
    """Attitude-hold actions: wings level, nose level, no turn, cruise throttle."""
    return {agent: env.action_mappings[env.agent_index[agent]].to_action((0, 0, 0, 0.36))
            for agent in env.agents}


def test_a_random_1v1_episode_is_recorded_frame_by_frame(tmp_path):
    path = tmp_path / "fight.acmi"
    env = DogfightRecorder(MAFixedwingDogfightEnv(team_size=1, max_duration_seconds=2.0), path)
    try:
        env.reset(seed=3)
        for k, agent in enumerate(env.possible_agents):
            env.action_space(agent).seed(k)
        drones = env.unwrapped.drones
        times, positions, eulers = [0.0], [[d.state[3].copy() for d in drones]], \
            [[d.state[1].copy() for d in drones]]
        while env.agents:
            env.step({agent: env.action_space(agent).sample() for agent in env.agents})
            times.append(env.aviary.elapsed_time)
            positions.append([d.state[3].copy() for d in drones])
            eulers.append([d.state[1].copy() for d in drones])
        assert env.written == [path] and path.exists()  # written as the episode ended
    finally:
        env.close()
    assert len(times) == 61  # reset + 2 s at 30 Hz

    recording = read_acmi(path)
    assert recording.header == {"FileType": "text/acmi/tacview", "FileVersion": "2.2"}
    assert recording.reference_latitude == DEFAULT_REFERENCE_LATITUDE
    assert recording.global_properties["Comments"] == "reset(seed=3)"
    assert recording.objects == {
        1: {"Name": "team 0 / uav 0", "Type": "Air+FixedWing", "Color": "Red",
            "Coalition": "team 0"},
        2: {"Name": "team 1 / uav 1", "Type": "Air+FixedWing", "Color": "Blue",
            "Coalition": "team 1"}}
    # A frame per step, at the aviary's time, with both aircraft where the aviary had them.
    np.testing.assert_allclose([time for time, _ in recording.frames], times, atol=1e-6)
    for i in range(2):
        track_times, track_positions, track_euler = recording.enu_track(i + 1)
        assert len(track_times) == len(times)
        assert np.abs(track_positions - np.array(positions)[:, i]).max() < 0.01  # 1 cm
        error = track_euler - np.array(eulers)[:, i]
        error = (error + math.pi) % (2 * math.pi) - math.pi
        assert np.degrees(np.abs(error)).max() < 0.01
    assert recording.events == [] and recording.removals == []


def test_hits_health_the_kill_and_the_win_are_events(tmp_path):
    path = tmp_path / "kill.acmi"
    env = DogfightRecorder(MAFixedwingDogfightEnv(team_size=1, damage_per_hit=0.05), path)
    try:
        env.reset(seed=0)
        place(env, "uav_1", (0.0, 0.0, ALTITUDE))
        place(env, "uav_0", (10.0, 0.0, ALTITUDE))  # 10 m ahead of uav_1's guns
        dealt = 0
        while env.agents:
            _, _, _, _, infos = env.step(level(env))
            dealt += infos["uav_1"]["dealt_hits"]
        assert env.written == [path]
    finally:
        env.close()
    assert dealt == 20  # 20 hits of 0.05 kill

    recording = read_acmi(path)
    hits = [e for e in recording.events if e.kind == "Message"]
    assert hits and all(e.object_ids == (2, 1) for e in hits)
    assert all(e.text.startswith("team 1 / uav 1 hit team 0 / uav 0: ") for e in hits)
    assert sum(int(e.text.split(": ")[1].split(" ")[0]) for e in hits) == dealt
    end = recording.frames[-1][0]
    kinds = [(e.kind, e.object_ids, e.text) for e in recording.events if e.kind != "Message"]
    assert kinds == [("Destroyed", (1,), "team 0 / uav 0 shot down by team 1 / uav 1"),
                     ("Bookmark", (), "team 1 wins")]
    assert recording.removals == [(end, 1)]
    assert recording.objects[1]["Health"] == "0" and "Health" not in recording.objects[2]
    assert all(e.time <= end for e in recording.events)


def test_a_crash_and_leaving_the_dome_then_close_mid_episode(tmp_path):
    path = tmp_path / "fail.acmi"
    dogfight = MAFixedwingDogfightEnv(team_size=2)
    env = DogfightRecorder(dogfight, path)
    try:
        env.reset(seed=0)
        place(env, "uav_1", (0.0, 799.8, ALTITUDE), yaw=math.pi / 2)  # leaving the dome
        place(env, "uav_3", (50.0, 0.0, 0.15), velocity=(SPEED, 0.0, -8.0))  # into the floor
        _, _, terminations, _, infos = env.step(level(env))
        assert terminations["uav_1"] and terminations["uav_3"] and infos["uav_3"]["collision"]
        env.step(level(env))
        assert env.written == []  # the episode goes on
    finally:
        env.close()
    assert env.written == [path]

    recording = read_acmi(path)
    first_step = recording.frames[1][0]
    assert [(e.kind, e.object_ids, e.text) for e in recording.events] == [
        ("LeftArea", (2,), "team 0 / uav 1 left the flight dome"),
        ("Destroyed", (4,), "team 1 / uav 3 crashed")]
    assert recording.removals == [(first_step, 2), (first_step, 4)]
    assert set(recording.frames[2][1]) == {1, 3}  # the next step: the two still flying


def test_one_file_per_episode_with_the_episode_field(tmp_path):
    env = DogfightRecorder(MAFixedwingDogfightEnv(team_size=1), tmp_path / "ep{episode}.acmi")
    try:
        for seed in (0, 1):
            env.reset(seed=seed)
            env.step(level(env))
        assert env.written == [tmp_path / "ep0.acmi"]  # the unfinished episode 0, at reset
    finally:
        env.close()
    assert env.written == [tmp_path / "ep0.acmi", tmp_path / "ep1.acmi"]
    for episode in (0, 1):
        recording = read_acmi(tmp_path / f"ep{episode}.acmi")
        assert recording.global_properties["Title"] == f"dogfight episode {episode}"
        assert len(recording.frames) == 2


def test_bad_arguments_raise_clear_errors(tmp_path):
    with pytest.raises(TypeError, match="env must be a MAFixedwingDogfightEnv"):
        DogfightRecorder(object(), tmp_path / "x.acmi")
    env = MAFixedwingDogfightEnv(team_size=1)
    try:
        with pytest.raises(ValueError, match=r"path must name an \.acmi file"):
            DogfightRecorder(env, tmp_path / "x.txt")
        with pytest.raises(FileWriteError, match="does not exist"):
            DogfightRecorder(env, tmp_path / "missing" / "x.acmi")
        with pytest.raises(ValueError, match="reference_latitude"):
            DogfightRecorder(env, tmp_path / "x.acmi", reference_latitude=90.0)
        with pytest.raises(TypeError, match="title"):
            DogfightRecorder(env, tmp_path / "x.acmi", title=3)
    finally:
        env.close()
    assert list(tmp_path.iterdir()) == []


def test_the_recorder_passes_the_parallel_api_test(tmp_path):
    env = DogfightRecorder(MAFixedwingDogfightEnv(team_size=1, max_duration_seconds=1.0),
                           tmp_path / "api_{episode}.acmi")
    assert_parallel_api_clean(env, num_cycles=40)
    assert env.written and all(path.exists() for path in env.written)
