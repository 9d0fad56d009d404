"""The training recipes (examples/train_*.py), the dogfight scripts and the cold-start
benchmark check where their results go before anything is trained, flown or measured: an
output naming an existing file, a file of the wrong kind, or a folder where no file can be
created (``/proc``: it passes os.access for root, who runs CI) exits 2 with one line on
stderr, no traceback, and creates nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import require_extra

ROOT = Path(__file__).resolve().parents[2]
ON_LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")


def run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / script), *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


# (script, its arguments, the error line after "<script name>: error: argument ")
CASES = [
    ("examples/train_dogfight.py", ["--out", "{tmp}/taken"],
     "--out {tmp}/taken is a file, not a folder"),
    ("examples/train_dogfight.py", ["--out", "/proc/runs"], "--out /proc/runs cannot be created ("),
    ("examples/train_dogfight.py", ["--out", "{tmp}/taken/runs"],
     "--out {tmp}/taken/runs cannot be created (Not a directory)"),
    ("examples/train_fixedwing_reach.py", ["--out", "{tmp}/taken"],
     "--out {tmp}/taken is a file, not a folder"),
    ("examples/train_fixedwing_reach.py", ["--out", "/proc/runs"],
     "--out /proc/runs cannot be created ("),
    ("examples/train_fixedwing_reach.py", ["--out", "{tmp}", "--curve", "{tmp}/curve.svg"],
     "--curve must name an .png file, got '{tmp}/curve.svg'"),
    ("examples/train_fixedwing_reach.py", ["--out", "{tmp}", "--curve", "/proc/curve.png"],
     "--curve /proc/curve.png: its folder /proc is not writable ("),
    ("examples/train_fixedwing_reach.py", ["--out", "{tmp}", "--curve", "{tmp}/c.png",
                                           "--results", "{tmp}/taken/r.json"],
     "--results {tmp}/taken/r.json: its folder {tmp}/taken is a file, not a folder"),
    ("examples/train_ppo_hover.py", ["--out", "{tmp}/taken"],
     "--out must name an .zip file, got '{tmp}/taken'"),
    ("examples/train_ppo_hover.py", ["--out", "/proc/ppo.zip"],
     "--out /proc/ppo.zip: its folder /proc is not writable ("),
    ("examples/train_batched_ppo.py", ["--out", "/proc/runs"],
     "--out /proc/runs cannot be created ("),
]


@ON_LINUX
@pytest.mark.parametrize(("script", "args", "line"), CASES,
                         ids=[f"{Path(s).stem} {' '.join(a)}" for s, a, _ in CASES])
def test_a_recipe_refuses_an_output_it_cannot_write_before_training(tmp_path, script, args,
                                                                    line):
    if script.endswith("train_batched_ppo.py"):
        require_extra("rl", "torch")  # it checks --out after the memory, with torch loaded
    (tmp_path / "taken").write_text("a file")
    fill = {"tmp": str(tmp_path)}
    result = run(script, *(a.format(**fill) for a in args), cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == "", result.stderr
    lines = [text for text in result.stderr.splitlines() if "pybullet" not in text]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"{Path(script).name}: error: argument {line.format(**fill)}")
    assert lines[0].endswith(") (see --help)" if line.endswith("(") else
                             f"{line.format(**fill)} (see --help)"), lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]  # nothing created


SCRIPTS = [
    ("scripts/draw_acmi_tracks.py", ["--acmi", "/proc/x.acmi"],
     "--acmi /proc/x.acmi: no file can be written in its folder /proc ("),
    ("scripts/draw_acmi_tracks.py", ["--png", "/proc/x.png"],
     "--png /proc/x.png: no file can be written in its folder /proc ("),
    ("scripts/draw_acmi_tracks.py", ["--png", "{tmp}/x.png", "--from", "{tmp}/taken"],
     "{tmp}/taken, line 1: expected the header line FileType=..., got 'a file'"),
    ("scripts/evaluate_pursuit_pilot.py", ["--output", "/proc/x.json"],
     "--output /proc/x.json: no file can be written in its folder /proc ("),
    ("scripts/evaluate_pursuit_pilot.py", ["--output", "{tmp}/taken"],
     "--output must name an .json file, got '{tmp}/taken'"),
    ("benchmarks/bench_cold_start.py", ["--json", "/proc/x.json"],
     "--json /proc/x.json: no file can be written in its folder /proc ("),
]


@ON_LINUX
@pytest.mark.parametrize(("script", "args", "line"), SCRIPTS,
                         ids=[f"{Path(s).stem} {' '.join(a)}" for s, a, _ in SCRIPTS])
def test_a_script_refuses_an_output_it_cannot_write_before_its_work(tmp_path, script, args,
                                                                    line):
    (tmp_path / "taken").write_text("a file")
    fill = {"tmp": str(tmp_path)}
    result = run(script, *(a.format(**fill) for a in args), cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == "", result.stderr
    lines = [text for text in result.stderr.splitlines() if "pybullet" not in text]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"{Path(script).name}: error: {line.format(**fill)}"), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
