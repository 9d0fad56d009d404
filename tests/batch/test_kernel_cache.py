"""numba's caches of the package's kernels: in a per-user cache folder named after every
compiled source, never inside the package; a cold cache says that it is compiling.

The end-to-end checks (slow tests) share one cold and one warm run of a small BatchedAviary
in fresh interpreters (the cold one compiles for about 30 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

from pyflyt_like.common import angles
from pyflyt_like.compiled import kernel_cache
from pyflyt_like.compiled.kernel_cache import (
    IDLE_BEFORE_REMOVAL,
    PACKAGE,
    PackageCacheLocator,
    cache_folder,
    python_tag,
    remove_older_folders,
    sources_digest,
    user_cache_home,
)

# Imports a task-layer kernel module first, as gymnasium.make_vec does, then steps the
# batched engine; prints the cache folders and every package kernel's cache path.
STEP_A_SMALL_AVIARY = """
import json, sys
import numpy as np
import pyflyt_like.envs.multirotor_tasks.vector_env
from numba.core.registry import CPUDispatcher
from pyflyt_like.batch import BatchedAviary
from pyflyt_like.compiled.kernel_cache import PackageCacheLocator

sim = BatchedAviary(n_worlds=2, n_drones=1, mode=1, seed=0)
sim.set_setpoints(np.array([0.2, 0.0, 0.0, 1.2 * sim.model.mass * sim.gravity]))
sim.step(100)
kernels = {f"{name}.{key}": value.stats.cache_path
           for name, module in list(sys.modules.items()) if name.startswith("pyflyt_like")
           for key, value in vars(module).items() if isinstance(value, CPUDispatcher)}
print(json.dumps({"folder": str(PackageCacheLocator.folder),
                  "temporary": str(PackageCacheLocator.process_folder),
                  "kernels": kernels, "pos": sim.pos.tolist()}))
"""


def package_cache_files() -> dict[str, int]:
    """numba cache files inside the package, with their modification times [ns]."""
    return {str(path): path.stat().st_mtime_ns
            for pattern in ("**/__pycache__/*.nbi", "**/__pycache__/*.nbc")
            for path in PACKAGE.glob(pattern)}


def cache_files(folder: Path) -> dict[str, int]:
    return {str(path): path.stat().st_mtime_ns for path in folder.rglob("*.nb[ic]")}


def step_in_fresh_interpreter(cache_home: Path, tmp: Path) -> tuple[dict, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES")}
    env.update(XDG_CACHE_HOME=str(cache_home), TMPDIR=str(tmp))
    tmp.mkdir(exist_ok=True)
    result = subprocess.run([sys.executable, "-c", STEP_A_SMALL_AVIARY], env=env, cwd=tmp,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A cold then a warm run under one fresh cache home, with the files around them."""
    root = tmp_path_factory.mktemp("kernel_cache")
    package_before = package_cache_files()
    cold, cold_stderr = step_in_fresh_interpreter(root / "cache", root / "tmp")
    folder = Path(cold["folder"])
    after_cold = cache_files(folder)
    warm, warm_stderr = step_in_fresh_interpreter(root / "cache", root / "tmp")
    return {"root": root, "folder": folder, "package_before": package_before,
            "package_after": package_cache_files(), "cold": cold, "cold_stderr": cold_stderr,
            "after_cold": after_cold, "warm": warm, "warm_stderr": warm_stderr,
            "after_warm": cache_files(folder)}


def new_or_changed(before: dict, after: dict) -> list[str]:
    return sorted(path for path, mtime in after.items() if before.get(path) != mtime)


# ---------------------------------------------------------------------------- end to end
# Slow: the cold run compiles the engine in a cache of its own (85-97 s in a 2-core suite run,
# not shared with the rest of the suite). The folder, digest and locator rules they rest on are
# checked by the fast tests below, and every kernel the suite compiles goes through them.
@pytest.mark.slow
def test_a_cold_run_compiles_into_the_user_cache_folder_and_says_so(runs):
    folder = runs["folder"]
    assert folder.is_relative_to(runs["root"] / "cache" / "pyflyt_like" / "numba")
    assert folder.name.startswith(f"{python_tag()}-numba{numba.__version__}-")
    assert {Path(path).parent.name for path in runs["after_cold"]} >= {"batch", "common"}
    assert any(path.endswith(".nbi") for path in runs["after_cold"])
    assert runs["cold_stderr"].count("pyflyt_like: compiling") == 1
    assert f"cached in {folder}" in runs["cold_stderr"]


@pytest.mark.slow
def test_no_run_writes_a_cache_file_into_the_package(runs):
    assert new_or_changed(runs["package_before"], runs["package_after"]) == []


@pytest.mark.slow
def test_every_kernel_of_the_package_is_cached_in_the_folder(runs):
    """Also those of the task layer, imported before pyflyt_like.batch by name."""
    kernels = runs["cold"]["kernels"]
    assert any(".envs.multirotor_tasks." in name for name in kernels)
    assert any(name.startswith("pyflyt_like.batch.pipeline.") for name in kernels)
    misplaced = {name: path for name, path in kernels.items()
                 if not Path(path).is_relative_to(runs["folder"])}
    assert misplaced == {}


@pytest.mark.slow
def test_a_warm_run_loads_the_cache_silently_and_steps_alike(runs):
    assert "compiling" not in runs["warm_stderr"]
    assert runs["after_warm"] == runs["after_cold"]  # nothing compiled, nothing written
    assert runs["warm"]["pos"] == runs["cold"]["pos"]


@pytest.mark.slow
def test_an_unwritable_cache_folder_still_steps(runs, tmp_path):
    """Compiles again (about 30 s): nothing can be cached."""
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder would be")
    package_before = package_cache_files()
    result, stderr = step_in_fresh_interpreter(blocked, tmp_path / "tmp")
    assert result["pos"] == runs["cold"]["pos"]
    assert "not kept: cannot write" in stderr
    assert Path(result["temporary"]).is_relative_to(tmp_path / "tmp")
    assert not Path(result["temporary"]).exists()  # deleted at exit
    assert new_or_changed(package_before, package_cache_files()) == []


# ---------------------------------------------------------------------------- the folder
def test_the_folder_changes_with_the_sources_digest(tmp_path):
    first, second = cache_folder("0" * 64, tmp_path), cache_folder("1" * 64, tmp_path)
    assert first != second
    assert first.parent == second.parent  # same install: siblings
    assert first.parent.parent == tmp_path / "pyflyt_like" / "numba"
    assert first.name == f"{python_tag()}-numba{numba.__version__}-{'0' * 16}"


def test_idle_older_folders_of_the_same_python_are_removed(tmp_path):
    current = cache_folder("0" * 64, tmp_path)
    idle, busy = cache_folder("1" * 64, tmp_path), cache_folder("2" * 64, tmp_path)
    other_python = current.parent / "py27-numba0.50.0-0000000000000000"
    for folder in (current, idle, busy, other_python):
        (folder / "batch").mkdir(parents=True)
        (folder / "batch" / "f-1.py311.nbi").write_text("")
    long_ago = time.time() - 2 * IDLE_BEFORE_REMOVAL
    for folder in (current, idle, other_python):
        for path in (folder, folder / "batch"):
            os.utime(path, (long_ago, long_ago))
    unrelated = current.parent / "notes.txt"
    unrelated.write_text("kept")
    remove_older_folders(current)  # busy: a process of older sources may still write there
    assert sorted(p.name for p in current.parent.iterdir()) == sorted(
        [current.name, busy.name, other_python.name, unrelated.name])
    remove_older_folders(tmp_path / "missing" / "folder")  # nothing to list: no error


def test_the_digest_covers_kernel_modules_and_the_maths_packages(tmp_path):
    package = tmp_path / "package"
    for relative, source in {"engine/kernels.py": "from numba import njit\n",
                             "tasks/loops.py": "from numba import njit\n",
                             "common/formulas.py": "def f(x):\n    return x\n",
                             "physics/forces.py": "def g(x):\n    return x\n",
                             "cli.py": "VALUE = 1\n"}.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(source)
    digests = [sources_digest(package)]
    (package / "cli.py").write_text("VALUE = 2\n")  # compiled by nobody: same digest
    assert sources_digest(package) == digests[0]
    for relative in ("tasks/loops.py", "common/formulas.py", "physics/forces.py"):
        with open(package / relative, "a") as file:
            file.write("# edited\n")
        digests.append(sources_digest(package))
    assert len(set(digests)) == len(digests)


def test_the_user_cache_home_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache_home() == tmp_path
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # invalid per the spec
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert user_cache_home() == tmp_path / "home" / ".cache"


# ---------------------------------------------------------------------------- the locator
def test_the_locator_claims_package_files_only(monkeypatch, tmp_path):
    monkeypatch.setattr(PackageCacheLocator, "folder", tmp_path / "folder")
    locator = PackageCacheLocator.from_function(angles.wrap_angle, angles.__file__)
    assert locator.get_cache_path() == str(tmp_path / "folder" / "common")
    assert PackageCacheLocator.from_function(json.dumps, json.__file__) is None


def test_numba_cache_dir_is_left_to_numba(monkeypatch, tmp_path):
    monkeypatch.setattr(PackageCacheLocator, "folder", tmp_path / "folder")
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    assert PackageCacheLocator.from_function(angles.wrap_angle, angles.__file__) is None


def test_an_unwritable_folder_falls_back_to_the_process_folder(monkeypatch, tmp_path):
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(PackageCacheLocator, "folder", tmp_path / "file" / "folder")
    monkeypatch.setattr(PackageCacheLocator, "process_folder", tmp_path / "process")
    locator = PackageCacheLocator.from_function(angles.wrap_angle, angles.__file__)
    assert locator.get_cache_path() == str(tmp_path / "process" / "common")


def test_the_locator_is_first_in_numbas_list():
    from numba.core.caching import CacheImpl

    assert CacheImpl._locator_classes[0] is PackageCacheLocator
    assert kernel_cache.register_cache_locator() == PackageCacheLocator.folder  # once only
    assert CacheImpl._locator_classes.count(PackageCacheLocator) == 1


def test_no_cached_kernel_calls_numbas_thread_id():
    # numba.get_thread_id() compiles to an address of this process: a kernel that calls it,
    # loaded from the cache by another process, crashes (numba 0.68). Every kernel here is
    # cached, so none may call it.
    package = Path(kernel_cache.__file__).resolve().parents[1]
    callers = [str(path.relative_to(package)) for path in sorted(package.rglob("*.py"))
               if "get_thread_id" in path.read_text()]
    assert callers == []
