"""scripts/evaluate_dogfight.py: an untrained policy flies two episodes against the scripted
pilot and against another policy and the JSON adds up; user errors exit 2 with one line on
stderr and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason='needs the rl extra: pip install "pyflyt_like[rl]"')

from pyflyt_like.envs.dogfight.options import MAX_TEAM_SIZE  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "evaluate_dogfight.py"
KEYS = {"policy", "opponent", "team_size", "episodes", "seed", "wins", "draws", "losses",
        "own_crashes", "own_dome_exits", "mean_length_steps", "win_share", "draw_share",
        "loss_share", "score"}


def run(*args: object, code: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, str(SCRIPT), *map(str, args)] if code is None else \
        [sys.executable, "-c", code, *map(str, args)]
    # this checkout's package first, whichever one is installed
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": path})


def error_line(result: subprocess.CompletedProcess) -> str:
    """The one line on stderr (pybullet's build-time banner aside)."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    (line,) = [text for text in result.stderr.splitlines() if "pybullet" not in text]
    assert line.startswith("evaluate_dogfight.py: error: ")
    return line


@pytest.mark.parametrize("opponent", ["scripted", "other"])
def test_two_episodes_write_the_json(dogfight_policies, tmp_path, opponent):
    path = tmp_path / "result.json"
    other = str(dogfight_policies[1]) if opponent == "other" else "scripted"
    result = run(dogfight_policies[1], "--opponent", other, "--episodes", 2, "--seed", 3,
                 "--json", path)
    assert result.returncode == 0, result.stderr
    assert "wins" in result.stdout and "sides alternated" in result.stdout
    summary = json.loads(path.read_text(encoding="utf-8"))
    assert KEYS <= set(summary)
    assert summary["wins"] + summary["draws"] + summary["losses"] == 2
    assert (summary["episodes"], summary["seed"], summary["team_size"]) == (2, 3, 1)
    assert summary["policy"] == str(dogfight_policies[1]) and summary["opponent"] == other
    assert summary["own_crashes"] >= 0 and summary["own_dome_exits"] >= 0
    assert summary["mean_length_steps"] > 0


def test_a_missing_policy_file(tmp_path):
    line = error_line(run(tmp_path / "nope.pt"))
    assert "POLICY" in line and "nope.pt: no such file" in line


def test_a_missing_opponent_file(dogfight_policies, tmp_path):
    line = error_line(run(dogfight_policies[1], "--opponent", tmp_path / "other.pt"))
    assert "--opponent" in line and "no such file" in line


def test_a_file_that_is_no_checkpoint(tmp_path):
    path = tmp_path / "notes.pt"
    path.write_text("not a policy\n", encoding="utf-8")
    assert "is not a PPOPolicy checkpoint" in error_line(run(path, "--episodes", 1))


@pytest.mark.parametrize(("policy_team_size", "flag_team_size"), [(2, 1), (1, 2)])
def test_a_policy_of_another_team_size_names_the_one_it_fits(dogfight_policies, policy_team_size,
                                                             flag_team_size):
    line = error_line(run(dogfight_policies[policy_team_size], "--team-size", flag_team_size,
                          "--episodes", 1))
    assert f"with --team-size {flag_team_size}" in line
    assert line.endswith(f"it fits --team-size {policy_team_size}")


@pytest.mark.parametrize(("args", "named"), [
    (["--episodes", "0"], "--episodes: must be an integer in [1, "),
    (["--episodes", "two"], "--episodes: must be an integer in [1, "),
    (["--team-size", "0"], "--team-size: must be an integer in [1, 128]"),
    (["--seed", "-1"], "--seed: must be an integer in [0, "),
])
def test_bad_numbers(dogfight_policies, args, named):
    assert named in error_line(run(dogfight_policies[1], *args))


def test_an_unwritable_json_is_refused_before_flying(dogfight_policies, tmp_path):
    line = error_line(run(dogfight_policies[1], "--json", tmp_path / "missing" / "out.json"))
    assert "--json" in line and "does not exist" in line
    line = error_line(run(dogfight_policies[1], "--json", tmp_path / "out.txt"))
    assert "--json must name an .json file" in line
    assert list(tmp_path.iterdir()) == []


def test_without_torch_the_rl_extra_is_named(dogfight_policies):
    code = ("import runpy, sys; sys.modules['torch'] = None; "
            f"sys.argv = ['evaluate_dogfight.py', *sys.argv[1:]]; "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    line = error_line(run(dogfight_policies[1], code=code))
    assert 'pip install "pyflyt_like[rl]"' in line


def test_the_scripts_team_size_bound_is_the_scenes():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import evaluate_dogfight
    finally:
        sys.path.remove(str(SCRIPT.parent))
    assert evaluate_dogfight.MAX_TEAM_SIZE == MAX_TEAM_SIZE
