"""RLlib on a real local Ray cluster (a head node started in this process's machine, the
tests connected to it by address): the registered tasks train with two env runners."""

from __future__ import annotations

import math
import os
import signal

import pytest

from .ray_required import import_ray

ray = import_ray("ray.rllib")

from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.tune.registry import ENV_CREATOR, _global_registry  # noqa: E402

from pyflyt_like.integrations.rllib import (  # noqa: E402
    MULTI_AGENT_SCENES,
    dogfight_policy_mapping,
    register_rllib_envs,
    single_agent_ids,
)


def test_every_task_and_scene_is_registered_and_builds_with_its_env_config():
    ids = register_rllib_envs()
    assert ids == single_agent_ids() + list(MULTI_AGENT_SCENES)
    assert len(ids) == 16  # 14 single-agent tasks (the PyBullet ones and twins), 2 scenes
    for env_id in ids:
        assert _global_registry.contains(ENV_CREATOR, env_id), env_id
    hover = _global_registry.get(ENV_CREATOR, "pyflyt_like/QuadX-Hover-v0")(
        {"max_duration_seconds": 2.0})
    assert hover.unwrapped.max_duration_seconds == 2.0
    hover.close()
    scene = _global_registry.get(ENV_CREATOR, "pyflyt_like/MAQuadX-Hover-v0")({})
    observations, _ = scene.reset(seed=0)
    assert set(observations) == set(scene.get_agent_ids()) and len(observations) == 4
    scene.close()


def hover_ppo(num_epochs: int) -> PPOConfig:
    """PPO on QuadX-Hover with 2 env runners of 0.5 CPU, 400 env steps per iteration."""
    register_rllib_envs()
    return (PPOConfig()
            .environment("pyflyt_like/QuadX-Hover-v0", env_config={})
            .env_runners(num_env_runners=2, rollout_fragment_length=100,
                         num_cpus_per_env_runner=0.5)
            .learners(num_learners=0)
            .training(train_batch_size_per_learner=400, minibatch_size=100,
                      num_epochs=num_epochs))


def test_ppo_trains_on_quadx_hover_with_two_env_runners_on_the_cluster(cluster):
    algo = hover_ppo(num_epochs=2).build_algo()
    try:
        results = [algo.train() for _ in range(2)]
        per_runner = algo.env_runner_group.foreach_env_runner(
            lambda runner: (runner.worker_index, runner.num_env_steps_sampled_lifetime),
            local_env_runner=False)
    finally:
        algo.stop()
    assert sorted(index for index, _ in per_runner) == [1, 2]
    assert all(steps > 0 for _, steps in per_runner), per_runner
    assert results[-1]["env_runners"]["num_env_steps_sampled_lifetime"] >= 800
    for result in results:
        losses = result["learners"]["default_policy"]
        for key in ("total_loss", "policy_loss", "vf_loss"):
            assert math.isfinite(losses[key]), (key, losses[key])


def test_dogfight_trains_one_policy_per_team_on_the_cluster(cluster):
    register_rllib_envs()
    config = (PPOConfig()
              .environment("pyflyt_like/MAFixedwing-Dogfight-v0", env_config={"team_size": 2})
              .env_runners(num_env_runners=2, rollout_fragment_length=50,
                           num_cpus_per_env_runner=0.5)
              .learners(num_learners=0)
              .multi_agent(policies={"team_0", "team_1"},
                           policy_mapping_fn=dogfight_policy_mapping(2))
              .training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1))
    algo = config.build_algo()
    try:
        result = algo.train()
        per_runner = algo.env_runner_group.foreach_env_runner(
            lambda runner: runner.num_env_steps_sampled_lifetime, local_env_runner=False)
    finally:
        algo.stop()
    assert len(per_runner) == 2 and all(steps > 0 for steps in per_runner), per_runner
    for team in ("team_0", "team_1"):
        loss = result["learners"][team]["total_loss"]
        assert math.isfinite(loss), (team, loss)


def test_dogfight_policy_mapping_follows_the_team_split():
    policy_of = dogfight_policy_mapping(3)
    assert [policy_of(f"uav_{i}") for i in range(6)] == ["team_0"] * 3 + ["team_1"] * 3
    with pytest.raises(ValueError, match="team_size"):
        dogfight_policy_mapping(0)


def test_training_survives_a_killed_env_runner(cluster):
    algo = hover_ppo(num_epochs=1).fault_tolerance(restart_failed_env_runners=True).build_algo()
    try:
        algo.train()
        pids = algo.env_runner_group.foreach_env_runner(lambda runner: os.getpid(),
                                                        local_env_runner=False)
        os.kill(pids[0], signal.SIGKILL)
        sampled = [algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
                   for _ in range(3)]
        # RLlib restores a dead runner at the start of a later iteration, when its new actor
        # answers: on a loaded machine that can take a few more iterations.
        for _ in range(10):
            healthy = algo.env_runner_group.num_healthy_remote_workers()
            if healthy == 2:
                break
            sampled.append(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
        new_pids = algo.env_runner_group.foreach_env_runner(lambda runner: os.getpid(),
                                                            local_env_runner=False)
    finally:
        algo.stop()
    # Training went on after the kill (the lifetime count keeps growing), and the dead
    # runner was replaced by a new process.
    assert all(a < b for a, b in zip(sampled, sampled[1:]))
    assert healthy == 2
    assert pids[0] not in new_pids and len(new_pids) == 2


def test_ppo_samples_the_batched_vector_env_through_vector_entry_point(cluster):
    register_rllib_envs()
    config = (PPOConfig()
              .environment("pyflyt_like/Multirotor-Hover-v0",
                           env_config={"max_duration_seconds": 0.2})
              .env_runners(num_env_runners=1, num_envs_per_env_runner=64,
                           gym_env_vectorize_mode="vector_entry_point",
                           rollout_fragment_length=8, num_cpus_per_env_runner=0.5)
              .learners(num_learners=0)
              .training(train_batch_size_per_learner=512, minibatch_size=256, num_epochs=1))
    algo = config.build_algo()
    try:
        results = [algo.train() for _ in range(3)]
        env_types = algo.env_runner_group.foreach_env_runner(
            lambda runner: type(runner.env.unwrapped).__name__, local_env_runner=False)
    finally:
        algo.stop()
    assert env_types == ["MultirotorVectorEnv"]
    # 3 × 512 steps over 64 worlds is 24 steps each: every world's 0.2 s episode (10 steps)
    # ended and was auto-reset at least twice
    assert results[-1]["env_runners"]["num_env_steps_sampled_lifetime"] >= 3 * 512
    assert results[-1]["env_runners"]["num_episodes_lifetime"] >= 2 * 64
    assert math.isfinite(results[-1]["learners"]["default_policy"]["total_loss"])


def test_the_multirotor_creator_gives_the_twin_without_num_envs():
    register_rllib_envs()
    twin = _global_registry.get(ENV_CREATOR, "pyflyt_like/Multirotor-Hover-v0")({})
    assert type(twin.unwrapped).__name__ == "MultirotorTwinEnv"
    twin.close()
