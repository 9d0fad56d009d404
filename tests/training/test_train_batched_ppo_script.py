"""examples/train_batched_ppo.py follows the CLI rule: every bad option exits with status 2
and one line on stderr naming it, no traceback, before anything is loaded or trained.

Each bad case runs the script in a subprocess (~0.2 s: the options are checked before the
simulator or torch is imported); the one full run is marked slow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import require_extra

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_batched_ppo.py"
CPUS = os.cpu_count() or 1


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.parametrize(("args", "named"), [
    (["--task", "Multirotor-Hover-v1"], "--task: invalid choice"),
    (["--task", ""], "--task: invalid choice"),
    (["--task", "QuadX-Hover-v4"], "--task: invalid choice"),
    (["--num-envs", "0"], r"--num-envs: must be an integer in [1, 1048576], got '0'"),
    (["--num-envs", "-5"], "--num-envs: must be an integer in [1, "),
    (["--num-envs", "1.5"], "--num-envs: must be an integer"),
    (["--num-envs", "1e3"], "--num-envs: must be an integer"),
    (["--num-envs", "10**13"], "--num-envs: must be an integer"),
    (["--num-envs", "10000000000000"], "--num-envs: must be an integer in [1, 1048576]"),
    (["--num-envs", "many"], "--num-envs: must be an integer"),
    (["--num-envs", ""], "--num-envs: must be an integer"),
    (["--num-envs"], "--num-envs: expected one argument"),
    (["--minutes", "-1"], "--minutes: must be a number of minutes in (0, 525600], got '-1'"),
    (["--minutes", "0"], "--minutes: must be a number of minutes"),
    (["--minutes", "nan"], "--minutes: must be a number of minutes"),
    (["--minutes", "inf"], "--minutes: must be a number of minutes"),
    (["--minutes", "1e400"], "--minutes: must be a number of minutes"),
    (["--minutes", "600000"], "--minutes: must be a number of minutes"),
    (["--minutes", "five"], "--minutes: must be a number of minutes"),
    (["--minutes", "-inf"], "--minutes: expected one argument"),
    (["--total-steps", "0"], "--total-steps: must be an integer in [1, "),
    (["--total-steps", "-1"], "--total-steps: must be an integer"),
    (["--total-steps", "1e9"], "--total-steps: must be an integer"),
    (["--total-steps", str(2**63)], "--total-steps: must be an integer"),
    (["--threads", "0"], f"--threads: must be an integer in [1, {CPUS}]"),
    (["--threads", str(CPUS + 1)], f"--threads: must be an integer in [1, {CPUS}]"),
    (["--threads", "1.5"], "--threads: must be an integer"),
    (["--eval-episodes", "0"], "--eval-episodes: must be an integer in [1, 100000]"),
    (["--eval-episodes", "100001"], "--eval-episodes: must be an integer in [1, 100000]"),
    (["--eval-workers", "0"], f"--eval-workers: must be an integer in [1, {CPUS}]"),
    (["--eval-workers", str(CPUS + 1)], "--eval-workers: must be an integer"),
    (["--flight-mode", "2"], "--flight-mode: invalid choice: 2"),
    (["--flight-mode", "1.0"], "--flight-mode: invalid int value"),
    (["--flight-mode", "x"], "--flight-mode: invalid int value"),
    (["--seed", "-1"], "--seed: must be an integer in [0, 9223372036854775807], got '-1'"),
    (["--seed", "1.5"], "--seed: must be an integer"),
    (["--seed", "True"], "--seed: must be an integer"),
    (["--seed", str(2**63)], "--seed: must be an integer"),
    (["--seed"], "--seed: expected one argument"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["Multirotor-Hover-v0"], "unrecognized arguments: Multirotor-Hover-v0"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else None)
def test_a_bad_option_exits_2_with_one_line_naming_it(tmp_path, args, named):
    out = tmp_path / "runs"
    result = _run(*args, "--out", str(out)) if "--out" not in args else _run(*args)
    assert result.returncode == 2
    assert result.stdout == ""  # nothing was loaded, trained or printed
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("train_batched_ppo.py: error: ") and named in lines[0]
    assert lines[0].endswith("(see --help)")
    assert not out.exists()  # not even the output folder was made


def test_an_out_that_is_a_file_exits_2(tmp_path):
    path = tmp_path / "runs"
    path.write_text("a file")
    result = _run("--out", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"train_batched_ppo.py: error: argument --out: {str(path)!r} is a file, not a folder "
        f"(see --help)"]


def test_without_torch_the_script_exits_2_naming_the_extra():
    # as `python examples/train_batched_ppo.py` runs it: its folder first on sys.path
    hide_torch = ("import sys, runpy; sys.modules['torch'] = None; "
                  f"sys.path.insert(0, {str(SCRIPT.parent)!r}); "
                  f"sys.argv = [{str(SCRIPT)!r}]; runpy.run_path({str(SCRIPT)!r}, "
                  "run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", hide_torch], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "this example needs torch: pip install torch --index-url "
        "https://download.pytorch.org/whl/cpu, then pip install 'pyflyt_like[rl]'"]


# The machine the memory case pretends to run on: os.sysconf reports this much physical
# memory to the script's subprocess, so half of it (the limit) is what the refusal names,
# whatever memory the machine running the tests has.
PRETEND_MEMORY = 8 * 2**30
PRETEND_PAGE = 4096


def _run_with_memory(memory: int, *args: str) -> subprocess.CompletedProcess:
    """Run the script as ``python examples/train_batched_ppo.py ARGS`` does, in a Python whose
    ``os.sysconf`` reports ``memory`` bytes of physical memory (any other name: the real one).
    """
    pretend = ("import os, runpy, sys\n"
               "real = getattr(os, 'sysconf', None)\n"
               f"pretend = {{'SC_PAGE_SIZE': {PRETEND_PAGE}, "
               f"'SC_PHYS_PAGES': {memory // PRETEND_PAGE}}}\n"
               "os.sysconf = lambda name: pretend[name] if name in pretend else real(name)\n"
               f"sys.path.insert(0, {str(SCRIPT.parent)!r})\n"
               f"sys.argv = [{str(SCRIPT)!r}, *{list(args)!r}]\n"
               f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n")
    return subprocess.run([sys.executable, "-c", pretend], capture_output=True, text=True,
                          timeout=60)


def test_a_num_envs_too_big_for_memory_exits_2_before_the_simulator_loads(tmp_path):
    require_extra("rl", "torch")  # the script imports torch before it checks the memory
    from pyflyt_like.training.memory import training_memory_bytes

    # the Hover recipe's sizes with 1-D spaces: what the script checks first; far more than
    # the pretend machine's limit, so the refusal is exercised on any machine
    needed = training_memory_bytes(32, 2**20, 1, 1, (64, 64), 4)
    assert needed > 2 * PRETEND_MEMORY
    out = tmp_path / "runs"
    result = _run_with_memory(PRETEND_MEMORY, "--num-envs", str(2**20), "--out", str(out))
    assert result.returncode == 2 and result.stdout == "", result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("train_batched_ppo.py: error: argument --num-envs 1048576 "
                           "(rollouts of 32 steps) needs about ")
    assert line.endswith(", more than the 4 GiB allowed (half this machine's memory); "
                         "use fewer envs (see --help)")
    assert not out.exists()
    # the same run on a machine with the memory passes that check and stops at the next,
    # before the simulator too: the --out folder, made after the memory check, cannot be
    # made under a file
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    roomy = _run_with_memory(4 * needed, "--num-envs", str(2**20), "--out",
                             str(blocker / "runs"))
    assert roomy.returncode == 2 and roomy.stdout == ""
    assert roomy.stderr.splitlines() == [
        f"train_batched_ppo.py: error: argument --out {blocker / 'runs'} cannot be created "
        f"(Not a directory) (see --help)"]


def test_help_lists_every_range():
    result = _run("--help")
    assert result.returncode == 0
    for text in ("1 to 1048576", "<= 525600", f"1 to {CPUS}", "1 to 100000", "0 to 2**63 - 1"):
        assert text in " ".join(result.stdout.split())


@pytest.mark.slow
def test_a_short_run_trains_evaluates_and_writes_its_files(tmp_path):
    pytest.importorskip("torch", reason='needs the rl extra: pip install "pyflyt_like[rl]"')
    pytest.importorskip("matplotlib", reason="draws the learning curve")
    result = _run("--minutes", "0.01", "--num-envs", "8", "--total-steps", "512",
                  "--eval-episodes", "1", "--eval-workers", "1", "--threads", "1",
                  "--out", str(tmp_path), timeout=600)
    assert result.returncode == 0, result.stderr
    assert "batched engine: return" in result.stdout and "PyBullet twin" in result.stdout
    names = {"Multirotor-Hover.pt", "Multirotor-Hover.h", "Multirotor-Hover_history.json",
             "Multirotor-Hover_curve.png", "Multirotor-Hover_evaluation.json"}
    written = {p.name for p in tmp_path.iterdir()}
    assert names <= written
    # the ONNX file with the export extra, a one-line note without it
    import importlib.util
    has_onnx = importlib.util.find_spec("onnx") is not None
    assert ("Multirotor-Hover.onnx" in written) == has_onnx
    assert ("not exported to ONNX" in result.stdout) == (not has_onnx)
    history = json.loads((tmp_path / "Multirotor-Hover_history.json").read_text())
    assert history[0]["env_steps"] == 8 * 32
