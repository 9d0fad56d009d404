"""DogfightVectorRecorder: chosen worlds of Dogfight-v0 written as Tacview ACMI files."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.common.acmi import read_acmi
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
from pyflyt_like.envs.dogfight.vector_recorder import DogfightVectorRecorder

from .test_vector_env import LEVEL, place


def test_chosen_worlds_are_recorded_episode_by_episode_with_the_kill(tmp_path):
    env = DogfightVectorEnv(num_envs=6, team_size=1, damage_per_hit=0.02,
                            max_duration_seconds=3.0)
    recorder = DogfightVectorRecorder(env, tmp_path / "w{world}_e{episode}.acmi", worlds=[0, 2])
    recorder.reset(seed=0)
    # a kill in world 0 (its reset frame keeps the spawn drawn before this placement)
    place(env, 0, [[0.0, 0.0, 60.0], [10.0, 0.0, 60.0]], np.zeros((2, 3)))
    positions = {0: [env.sim.pos[0].copy()], 2: [env.sim.pos[2].copy()]}
    for _ in range(95):  # world 0 ends early and restarts; world 2 runs out of time at 90
        recorder.step(np.tile(LEVEL, (6, 1)))
        for world in (0, 2):
            positions[world].append(env.sim.pos[world].copy())
    recorder.close()
    names = sorted(path.name for path in recorder.written)
    assert names == ["w0_e0.acmi", "w0_e1.acmi", "w2_e0.acmi", "w2_e1.acmi"]

    kill = read_acmi(tmp_path / "w0_e0.acmi")
    kinds = [event.kind for event in kill.events]
    assert "Message" in kinds and kinds[-2:] == ["Destroyed", "Bookmark"]
    assert "shot down by team 0 / uav 0" in kill.events[-2].text
    assert kill.events[-1].text == "team 0 wins"
    times, track, _ = kill.enu_track(1)
    expected = np.array(positions[0])[1:len(times), 0]  # the steps' frames
    assert np.abs(track[1:] - expected).max() < 0.01  # 1 cm

    timeout = read_acmi(tmp_path / "w2_e0.acmi")
    times, track, _ = timeout.enu_track(2)
    assert len(times) == 91  # the reset frame and 90 steps of 3 s at 30 Hz
    assert np.abs(track - np.array(positions[2])[:91, 1]).max() < 0.01


def test_bad_arguments_raise_clear_errors(tmp_path):
    env = DogfightVectorEnv(num_envs=4, team_size=1)
    with pytest.raises(ValueError, match="worlds"):
        DogfightVectorRecorder(env, tmp_path / "a{world}.acmi", worlds=[0, 2])
    with pytest.raises(ValueError, match="world"):
        DogfightVectorRecorder(env, tmp_path / "a.acmi", worlds=[0, 1])
    with pytest.raises(ValueError, match=".acmi"):
        DogfightVectorRecorder(env, tmp_path / "a.txt")
    with pytest.raises(TypeError, match="DogfightVectorEnv"):
        DogfightVectorRecorder(object(), tmp_path / "a.acmi")
