"""examples/train_dogfight.py: bad options exit 2 with one line before anything loads; a
short run writes every output it promises (slow); and a few minutes of league self-play
raise the judged score of an untrained policy against the scripted pilot (slow)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_dogfight.py"


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.parametrize(("args", "named"), [
    (["--team-size", "3"], "--team-size: must be an integer in [1, 2], got '3'"),
    (["--worlds", "0"], "--worlds: must be an integer in [1, 1048576], got '0'"),
    (["--minutes", "-3"], "--minutes: must be a number of minutes in (0, "),
    (["--gate", "1.5"], "--gate: must be a number in [0, 0.99], got '1.5'"),
    (["--aggressiveness", "nan"], "--aggressiveness: must be a number in [0, 1]"),
    (["--threads", "0"], "--threads: must be an integer in [1, "),
    (["--eval-episodes", "many"], "--eval-episodes: must be an integer"),
    (["--without", "courage"], "--without: invalid choice: 'courage'"),
    (["--imitation", "missing.pt"], "--imitation: must name an existing imitation.pt file"),
])
def test_a_bad_option_exits_2_with_one_line(args, named):
    result = _run(*args)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = [text for text in result.stderr.splitlines() if "pybullet" not in text]
    assert named in line


@pytest.mark.slow
def test_a_short_run_writes_every_output(tmp_path):
    pytest.importorskip("torch", reason='needs the rl extra: pip install "pyflyt_like[rl]"')
    result = _run("--minutes", "0.6", "--imitation-minutes", "0.3", "--worlds", "32",
                  "--judge-worlds", "16", "--judge-every", "2", "--eval-episodes", "1",
                  "--elo-worlds", "4", "--out", str(tmp_path), timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    for name in ("imitation.pt", "dogfight.pt", "dogfight_history.json", "dogfight_curve.png",
                 "dogfight_elo.json", "dogfight_elo.png", "dogfight_eval.json",
                 "dogfight_replay.acmi"):
        assert (tmp_path / name).stat().st_size > 0, name
    evaluation = json.loads((tmp_path / "dogfight_eval.json").read_text())
    scripted, imitation = (evaluation["pettingzoo"][k] for k in ("scripted", "imitation"))
    assert scripted["episodes"] == 1 and imitation["episodes"] == 2
    assert scripted["wins"] + scripted["draws"] + scripted["losses"] == 1
    elo = json.loads((tmp_path / "dogfight_elo.json").read_text())
    rated = {row["name"] for row in elo["ratings"]["players"]}
    assert {"pursuit-10m", "pursuit-20m", "pursuit-35m", "imitation", "dogfight"} <= rated


@pytest.mark.slow
def test_league_self_play_raises_the_judged_score_of_an_untrained_policy():
    torch = pytest.importorskip("torch", reason='needs the rl extra: pip install '
                                '"pyflyt_like[rl]"')
    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.matches import batched_matches
    from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
    from pyflyt_like.training import PPOConfig, PPOPolicy, train_ppo
    from pyflyt_like.training.league import League, LeagueEnv

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import train_dogfight
    finally:
        sys.path.remove(str(SCRIPT.parent))
    torch.set_num_threads(1)
    env = DogfightVectorEnv(num_envs=128, team_size=1, opponent="scripted",
                            aggressiveness=0.9)
    judge_env = DogfightVectorEnv(num_envs=128, team_size=1, opponent="scripted")
    config = PPOConfig(total_steps=128 * 64 * 60, seed=0, **train_dogfight.FROM_SCRATCH)
    policy = PPOPolicy.from_spaces(env.single_observation_space, env.single_action_space,
                                   config)
    league = League(128, 1, np.random.default_rng(0))
    league.add("pursuit-10m", PursuitPilot(env))

    def judged() -> float:
        return batched_matches(lambda e: policy.act, lambda e: PursuitPilot(e), seed=5,
                               env=judge_env).score

    untrained = judged()
    train_ppo(LeagueEnv(env, league), config, policy=policy)
    trained = judged()
    # measured: 0.000 untrained (it crashes or is shot down in every duel), 0.172 after
    # these 60 iterations
    assert trained > untrained + 0.1, (untrained, trained)
