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


def test_compile_lists_its_targets_and_refuses_bad_names():
    listed = run("compile", "--list")
    assert listed.returncode == 0 and "engine-multirotor" in listed.stdout
    assert "dogfight" in listed.stdout
    for args in (("compile",), ("compile", "nosuchkernel"), ("compile", "--all", "dogfight")):
        result = run(*args)
        assert result.returncode == 2, args
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_compile_compiles_a_target_then_loads_it_from_the_cache(tmp_path):
    import os

    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)

    def compile_once():
        return subprocess.run([sys.executable, "-m", "pyflyt_like", "compile",
                               "pettingzoo-dogfight"], capture_output=True, text=True,
                              timeout=600, env=env)

    first, second = compile_once(), compile_once()
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "compiled" in first.stdout and "pettingzoo-dogfight" in first.stdout
    assert "loaded from the cache" in second.stdout
    assert str(tmp_path) in second.stdout  # says where
    assert "1/1 pettingzoo-dogfight" in first.stderr
    assert "compiling kernels on first use" not in first.stderr  # its own report instead
