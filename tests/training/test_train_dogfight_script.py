"""examples/train_dogfight.py: bad options exit 2 with one line before anything loads; its
imitation of the scripted pilot measurably improves the policy's return (slow)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_dogfight.py"


@pytest.mark.parametrize(("args", "named"), [
    (["--worlds", "0"], "--worlds: must be an integer in [1, 1048576], got '0'"),
    (["--minutes", "-3"], "--minutes: must be a number of minutes in (0, "),
    (["--scripted-share", "1.5"], "--scripted-share: must be a number in [0, 1], got '1.5'"),
    (["--aggressiveness", "nan"], "--aggressiveness: must be a number in [0, 1]"),
    (["--threads", "0"], "--threads: must be an integer in [1, "),
    (["--eval-episodes", "many"], "--eval-episodes: must be an integer"),
])
def test_a_bad_option_exits_2_with_one_line(args, named):
    result = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = [text for text in result.stderr.splitlines() if "pybullet" not in text]
    assert named in line


@pytest.mark.slow
def test_imitating_the_scripted_pilot_improves_the_return():
    torch = pytest.importorskip("torch", reason='needs the rl extra: pip install '
                                '"pyflyt_like[rl]"')
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import train_dogfight
    finally:
        sys.path.remove(str(SCRIPT.parent))
    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
    from pyflyt_like.training import PPOConfig, PPOPolicy

    torch.set_num_threads(1)
    env = DogfightVectorEnv(num_envs=64, team_size=1, opponent=lambda obs: obs)
    pool = train_dogfight.OpponentPool(env.n_worlds, PursuitPilot(env), 1.0, 1,
                                       np.random.default_rng(0))
    env.opponent = pool
    pool.redraw(np.ones(env.n_worlds, bool))
    policy = PPOPolicy.from_spaces(env.single_observation_space, env.single_action_space,
                                   PPOConfig(hidden_sizes=(128, 128)))

    def mean_return() -> float:
        observations, _ = env.reset(seed=1)
        total = np.zeros(env.num_envs)
        for _ in range(300):  # 10 s of fights against the scripted pilot
            observations, reward, *_ = env.step(policy.act(observations))
            total += reward
        return float(total.mean())

    untrained = mean_return()
    result = train_dogfight.imitate(policy, env, pool, 200_000, 5, seed=0)
    imitated = mean_return()
    assert result["rms_error"] < 0.3
    assert imitated > untrained + 5.0, (untrained, imitated)  # measured: -15.3 -> -3.8
