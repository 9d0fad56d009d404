"""``import pyflyt_like.envs`` registers the ids and loads no engine: PyBullet, PettingZoo and
numba come with the first env (or class) that needs them."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pybullet", "pettingzoo", "numba")


def loaded_after(code: str) -> list[str]:
    """The modules of HEAVY loaded in a fresh interpreter after running ``code``."""
    script = (f"import json, sys\n{code}\n"
              f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_importing_the_package_loads_no_engine():
    assert loaded_after("import pyflyt_like.envs") == []


def test_the_batched_vector_env_runs_without_pybullet():
    code = ("import gymnasium, numpy, pyflyt_like.envs\n"
            "envs = gymnasium.make_vec('pyflyt_like/Multirotor-Hover-v0', num_envs=2, "
            "vectorization_mode='vector_entry_point')\n"
            "envs.reset(seed=0)\n"
            "envs.step(numpy.zeros((2, 4), numpy.float32))\n"
            "envs.close()")
    assert loaded_after(code) == ["numba"]


def test_a_class_brings_its_engine_on_access():
    assert {"pybullet", "pettingzoo"} <= set(
        loaded_after("import pyflyt_like.envs as e\ne.MAQuadXHoverEnv"))
    assert "pybullet" in loaded_after("import pyflyt_like.envs as e\ne.QuadXHoverEnv")
