"""scripts/dogfight_manoeuvres.py: an untrained policy and the teacher fly one episode each,
the JSON holds both pilots' statistics (the teacher's difference to itself is 0) and the
picture is drawn from the replays; user errors exit 2 with one line on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason='needs the rl extra: pip install "pyflyt_like[rl]"')


ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "dogfight_manoeuvres.py"


def run(*args: object) -> subprocess.CompletedProcess:
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=600, cwd=ROOT, env={**os.environ, "PYTHONPATH": path})


def error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    (line,) = [text for text in result.stderr.splitlines() if "pybullet" not in text]
    assert line.startswith("dogfight_manoeuvres.py: error: ")
    return line


@pytest.mark.slow
def test_one_episode_each_writes_the_statistics_the_replays_and_the_picture(dogfight_policies,
                                                                            tmp_path):
    pytest.importorskip("matplotlib")
    replays = tmp_path / "replays"
    replays.mkdir()
    result = run(dogfight_policies[1], "--episodes", 1, "--seed", 2, "--json", tmp_path / "m.json",
                 "--png", tmp_path / "m.png", "--acmi-folder", replays)
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert (report["episodes"], report["seed"]) == (1, 2)
    for name in ("policy", "teacher"):
        stats = report[name]
        assert stats["wins"] + stats["draws"] + stats["losses"] == 1
        assert stats["aircraft_steps"] == pytest.approx(stats["mean_length_steps"], abs=1)
        assert 0.0 <= stats["idle_throttle_share"] <= 1.0
    assert set(report["teacher"]["setpoint_rms_difference"].values()) == {0.0}
    assert max(report["policy"]["setpoint_rms_difference"].values()) > 0.0
    assert sorted(path.name for path in replays.iterdir()) == ["policy.acmi", "teacher.acmi"]
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_policy_file(tmp_path):
    line = error_line(run(tmp_path / "nope.pt"))
    assert "POLICY" in line and "nope.pt: no such file" in line


def test_a_2v2_policy_names_the_team_size_it_fits(dogfight_policies):
    line = error_line(run(dogfight_policies[2], "--episodes", 1))
    assert line.endswith("it fits --team-size 2")


def test_unwritable_outputs_are_refused_before_flying(dogfight_policies, tmp_path):
    line = error_line(run(dogfight_policies[1], "--png", tmp_path / "missing" / "out.png"))
    assert "--png" in line and "does not exist" in line
    line = error_line(run(dogfight_policies[1], "--json", tmp_path / "out.txt"))
    assert "--json must name an .json file" in line
    line = error_line(run(dogfight_policies[1], "--acmi-folder", tmp_path / "nowhere"))
    assert "--acmi-folder" in line and "no such folder" in line
    assert list(tmp_path.iterdir()) == []
