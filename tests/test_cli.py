"""The `pyflyt-like` entry point: the demo and argument errors."""

import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "pyflyt_like", *args], capture_output=True,
                          text=True, timeout=120)


def test_demo_reaches_every_waypoint():
    result = run("demo", "--seed", "3")
    assert result.returncode == 0, result.stderr
    assert "reached 4 of 4 waypoints" in result.stdout
    assert result.stderr == ""  # no pybullet banner


def test_bad_arguments_exit_2_with_one_line():
    for args in (("demo", "--seed", "x"), ("fly", "--seed", "x"), ("nosuchcommand",)):
        result = run(*args)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
