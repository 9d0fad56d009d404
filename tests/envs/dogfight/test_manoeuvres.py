"""pyflyt_like.envs.dogfight.manoeuvres: the recording pilot flies its pilot and records
the reference's commands on the same states; the statistics are those of hand-built
states; a pilot measured against itself differs by nothing."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.envs import MAFixedwingDogfightEnv
from pyflyt_like.envs.dogfight.manoeuvres import (
    CHANNELS,
    MIN_AIRSPEED,
    ManoeuvreRecord,
    manoeuvre_statistics,
    recording_pilot,
)
from pyflyt_like.envs.dogfight.matches import batched_matches, scene_matches
from pyflyt_like.envs.dogfight.pursuit_pilot import PursuitPilot
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv


def scripted(env):
    return PursuitPilot(env)


def teacher(env):
    return PursuitPilot(env, follow_distance=20.0)


def test_a_pilot_against_itself_differs_by_nothing_and_the_counts_add_up():
    record = ManoeuvreRecord()
    result = batched_matches(recording_pilot(teacher, teacher, record), scripted,
                             worlds=8, seed=3)
    stats = record.statistics()
    assert stats["setpoint_rms_difference"] == dict.fromkeys(CHANNELS, 0.0)
    assert stats["closing_throttle_command"] == stats["closing_reference_throttle"]
    assert stats["aircraft_steps"] == sum(len(step[0]) for step in record.steps)
    # each world flies at least its own episode's steps with one aircraft of side A
    assert stats["aircraft_steps"] >= result.mean_length_steps * result.episodes * 0.99
    # the teacher holds at least 13 m/s (it never idles to slow below its floor)
    assert stats["below_min_airspeed_share"] < 0.01
    assert 0.0 < stats["guns_solution_share"] < 1.0


def full_throttle(env):
    return lambda observations: np.tile([0.0, 0.0, 0.0, 1.0], (len(observations), 1))


def test_the_pilot_flown_is_measured_against_the_reference_asked():
    record = ManoeuvreRecord()
    scene_matches(recording_pilot(full_throttle, teacher, record), scripted, episodes=1,
                  seed=0, max_duration_seconds=1.0)
    scene = MAFixedwingDogfightEnv(team_size=1)
    asked = teacher(scene)  # stateless: it answers after its scene is closed
    scene.close()
    assert len(record.steps) == 30  # 1 s at 30 Hz, one aircraft per call
    for observations, setpoints, reference in record.steps:
        assert observations.shape == (1, record.layout.size)
        np.testing.assert_array_equal(setpoints[:, [0, 3]], [[0.0, 1.0]])  # what was flown
        np.testing.assert_allclose(reference, asked.mapping.to_setpoint(asked(observations)),
                                   atol=1e-12)
    assert record.statistics()["setpoint_rms_difference"]["throttle"] > 0.1


@pytest.fixture
def layout_record():
    """An empty record of the 1v1 batched scene, with its layout and guns set."""
    env = DogfightVectorEnv(num_envs=2, team_size=1)
    record = ManoeuvreRecord()
    recording_pilot(scripted, scripted, record)(env)
    env.close()
    return record


def state(layout, *, speed, throttle, enemy_at, enemy_velocity, enemy_health=1.0):
    """One observation: flying ``speed`` [m/s] along the nose at 50 m, throttle now
    ``throttle``, the one enemy at ``enemy_at`` [m] with relative velocity
    ``enemy_velocity`` [m/s] (body frame)."""
    row = np.zeros(layout.size)
    row[layout.angles] = (0.0, 0.0, 0.0, 1.0)
    row[layout.velocity] = (speed, 0.0, 0.0)
    row[layout.position] = (0.0, 0.0, 50.0)
    row[layout.throttle] = throttle
    row[layout.health] = 1.0
    block = layout.other_blocks(row[None, :])[0, 0]
    block[0:3], block[3:6] = enemy_at, enemy_velocity
    block[-2], block[-1] = enemy_health, 0.0
    return row


def test_statistics_of_hand_built_states(layout_record):
    record, layout = layout_record, layout_record.layout
    slow_closing_in_the_cone = state(layout, speed=10.0, throttle=0.0, enemy_at=(15.0, 0.5, 0.0),
                                     enemy_velocity=(-3.0, 0.0, 0.0))
    fast_far_off_the_nose = state(layout, speed=20.0, throttle=0.5, enemy_at=(0.0, 50.0, 0.0),
                                  enemy_velocity=(0.0, -3.0, 0.0))
    dead_enemy_close = state(layout, speed=14.0, throttle=0.5, enemy_at=(0.0, 0.0, 0.0),
                             enemy_velocity=(0.0, 0.0, 0.0), enemy_health=0.0)
    observations = np.stack((slow_closing_in_the_cone, fast_far_off_the_nose, dead_enemy_close))
    flown = np.array([[0.1, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.6], [0.0, 0.0, 0.0, 0.5]])
    asked = np.array([[0.0, 0.0, 0.0, 0.4], [0.0, 0.0, 0.0, 0.6], [0.0, 0.0, 0.0, 0.5]])
    record.steps.append((observations, flown, asked))
    stats = manoeuvre_statistics(record)
    assert stats["aircraft_steps"] == 3
    assert stats["below_min_airspeed_share"] == pytest.approx(1 / 3)  # 10 < 13 m/s
    assert MIN_AIRSPEED == 13.0
    assert stats["idle_throttle_share"] == pytest.approx(1 / 3)
    assert stats["closing_share"] == pytest.approx(1 / 3)  # only the first: close, closing
    assert stats["closing_throttle_command"] == 0.0
    assert stats["closing_reference_throttle"] == pytest.approx(0.4)
    assert stats["closing_idle_share"] == 1.0
    # 15 m < 20 m and 0.5 / 15 rad = 0.033 < 0.07 rad off the nose; the dead one is no target
    assert stats["guns_solution_share"] == pytest.approx(1 / 3)
    rms = stats["setpoint_rms_difference"]
    assert rms["roll"] == pytest.approx(0.1 / np.sqrt(3))
    assert rms["throttle"] == pytest.approx(0.4 / np.sqrt(3))
    assert rms["pitch"] == rms["yaw_rate"] == 0.0
    np.testing.assert_allclose(stats["airspeed_percentiles_10_50_90"],
                               np.percentile((10.0, 20.0, 14.0), (10, 50, 90)))


def test_an_empty_record_and_raw_flight_are_refused():
    with pytest.raises(ValueError, match="record is empty"):
        ManoeuvreRecord().statistics()
    env = DogfightVectorEnv(num_envs=2, team_size=1, assisted_flight=False)
    try:
        with pytest.raises(ValueError, match="flight_mode 1"):
            recording_pilot(scripted, scripted, ManoeuvreRecord())(env)
    finally:
        env.close()
