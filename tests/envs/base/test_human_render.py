"""render_mode="human" opens PyBullet's GUI where a display exists (here: a virtual one)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

SCRIPT = """
import gymnasium, pyflyt_like.envs
env = gymnasium.make("pyflyt_like/QuadX-Hover-v0", render_mode="human")
env.reset(seed=0)
for _ in range(2):
    env.step(env.action_space.sample())
gui = env.unwrapped.aviary.getConnectionInfo()["connectionMethod"]
print("result", env.render(), gui == 1)  # 1: pybullet.GUI
env.close()
"""


@pytest.mark.skipif(shutil.which("xvfb-run") is None,
                    reason="needs xvfb-run for a virtual X display")
def test_human_mode_flies_in_the_gui_and_render_returns_none():
    # In a child process: PyBullet allows one GUI per process, and a broken GUI must not
    # take the test session down with it.
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 640x480x24", sys.executable,
                           "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("result")]
    assert done.returncode == 0 and lines == ["result None True"], done.stderr[-2000:]
