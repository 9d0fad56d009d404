"""numba's caches of the package's kernels: in a per-user cache folder, one folder per module
named after the sources it can compile, never inside the package; a cold cache says that it
is compiling; the same sources installed elsewhere load the same kernels.

The end-to-end checks (slow tests) share one cold and one warm run of a small BatchedAviary
in fresh interpreters (the cold one compiles for about 30 s).
"""

from __future__ import annotations

import json
import os
import shutil
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
    KEEP_DIGESTS,
    PACKAGE,
    PackageCacheLocator,
    SourceGraph,
    cache_root,
    module_digest,
    module_folder,
    python_tag,
    remove_older_folders,
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
print(json.dumps({"folder": str(PackageCacheLocator.root),
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


def step_in_fresh_interpreter(cache_home: Path, tmp: Path,
                              install: Path | None = None) -> tuple[dict, str]:
    """Run STEP_A_SMALL_AVIARY with ``cache_home``; ``install``: a folder holding another
    copy of the package, imported instead of this one."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES")}
    env.update(XDG_CACHE_HOME=str(cache_home), TMPDIR=str(tmp))
    if install is not None:
        env["PYTHONPATH"] = str(install)
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
    after_warm = cache_files(folder)
    # the same sources installed again elsewhere (new path, new file times)
    copy_package(root / "install")
    again, again_stderr = step_in_fresh_interpreter(root / "cache", root / "tmp",
                                                    install=root / "install")
    return {"root": root, "folder": folder, "package_before": package_before,
            "package_after": package_cache_files(), "cold": cold, "cold_stderr": cold_stderr,
            "after_cold": after_cold, "warm": warm, "warm_stderr": warm_stderr,
            "after_warm": after_warm, "again": again, "again_stderr": again_stderr,
            "after_again": cache_files(folder)}


def copy_package(destination: Path) -> Path:
    """A copy of the package's sources and data under ``destination`` (as a reinstall
    writes them: new files, new times); returns the copy's package folder."""
    target = destination / PACKAGE.name
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def new_or_changed(before: dict, after: dict) -> list[str]:
    return sorted(path for path, mtime in after.items() if before.get(path) != mtime)


# ---------------------------------------------------------------------------- end to end
# Slow: the cold run compiles the engine in a cache of its own (85-97 s in a 2-core suite run,
# not shared with the rest of the suite). The folder, digest and locator rules they rest on are
# checked by the fast tests below, and every kernel the suite compiles goes through them.
@pytest.mark.slow
def test_a_cold_run_compiles_into_the_user_cache_folder_and_says_so(runs):
    folder = runs["folder"]
    assert folder == runs["root"] / "cache" / "pyflyt_like" / "numba" / (
        f"{python_tag()}-numba{numba.__version__}")
    pipeline = module_folder(PACKAGE / "batch" / "pipeline.py",
                             module_digest(PACKAGE / "batch" / "pipeline.py"), folder)
    assert any(Path(path).parent == pipeline for path in runs["after_cold"])
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
def test_the_same_sources_installed_elsewhere_load_the_cache(runs):
    assert "compiling" not in runs["again_stderr"]
    assert runs["after_again"] == runs["after_warm"]
    assert runs["again"]["pos"] == runs["cold"]["pos"]
    assert runs["again"]["kernels"] == runs["cold"]["kernels"]  # the same cache files


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
def test_a_modules_folder_is_named_after_its_digest_under_the_root(tmp_path):
    root = cache_root(tmp_path)
    assert root == tmp_path / "pyflyt_like" / "numba" / f"{python_tag()}-numba{numba.__version__}"
    path = PACKAGE / "batch" / "pipeline.py"
    first, second = module_folder(path, "0" * 64, root), module_folder(path, "1" * 64, root)
    assert first == root / "batch" / f"pipeline-{'0' * 16}"
    assert first.parent == second.parent and first != second


def test_older_digests_are_removed_once_idle_but_the_newest_are_kept(tmp_path):
    root = cache_root(tmp_path)
    path = PACKAGE / "batch" / "pipeline.py"
    folders = [module_folder(path, str(k) * 64, root) for k in range(6)]
    other = module_folder(PACKAGE / "batch" / "rotors.py", "9" * 64, root)
    now = time.time()
    ages = [0, 10, 2 * IDLE_BEFORE_REMOVAL, 3 * IDLE_BEFORE_REMOVAL, 10,
            4 * IDLE_BEFORE_REMOVAL]  # folder 0 is the current one
    for folder, age in zip([*folders, other], [*ages, 5 * IDLE_BEFORE_REMOVAL], strict=True):
        folder.mkdir(parents=True)
        (folder / "f-1.py311.nbi").write_text("")
        for item in (folder, folder / "f-1.py311.nbi"):
            os.utime(item, (now - age, now - age))
    remove_older_folders(folders[0])
    left = sorted(p.name for p in folders[0].parent.iterdir())
    # kept: the current one, the newest KEEP_DIGESTS - 1 others (1 and 4, both recent),
    # and every folder written recently (a process may still write there); not another
    # module's folder
    assert KEEP_DIGESTS == 3
    assert left == sorted(f.name for f in (folders[0], folders[1], folders[4], other))
    remove_older_folders(tmp_path / "missing" / f"folder-{'0' * 16}")  # nothing: no error


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory) -> Path:
    return copy_package(tmp_path_factory.mktemp("sources"))


def test_a_digest_covers_the_module_and_what_it_imports(package_copy):
    graph = SourceGraph(package_copy)
    closure = {path.relative_to(package_copy).as_posix()
               for path in graph.closure(package_copy / "batch" / "pipeline.py")}
    # its own stages' modules, the shared formulas they compile, relative and absolute
    assert {"batch/pipeline.py", "batch/controllers.py", "batch/rotors.py",
            "common/rotations.py", "control/pid.py", "physics/motor_lag.py",
            "compiled/scene.py", "worlds/grid.py"} <= closure
    # not what only runs in Python around it
    assert not closure & {"batch/aviary.py", "cli.py", "core/aviary.py", "envs/registry.py"}


def test_the_same_sources_elsewhere_have_the_same_digests(package_copy):
    for relative in ("batch/pipeline.py", "envs/multirotor_tasks/kernels.py",
                     "envs/dogfight/kernels.py"):
        assert SourceGraph(package_copy).module_digest(package_copy / relative) == \
            module_digest(PACKAGE / relative)


def test_an_edit_changes_the_digests_of_the_kernels_that_compile_it_only(package_copy):
    kernels = ["batch/pipeline.py", "batch/fixedwing/pipeline.py",
               "envs/multirotor_tasks/kernels.py", "envs/dogfight/kernels.py",
               "envs/fixedwing/kernels.py"]

    def digests() -> dict[str, str]:
        graph = SourceGraph(package_copy)
        return {kernel: graph.module_digest(package_copy / kernel) for kernel in kernels}

    before = digests()
    for unrelated in ("cli.py", "batch/aviary.py", "core/aviary.py"):
        with open(package_copy / unrelated, "a") as file:
            file.write("# edited: no kernel compiles this\n")
    assert digests() == before
    with open(package_copy / "rules" / "dogfight.py", "a") as file:
        file.write("# edited: the dogfight's rules\n")
    after = digests()
    changed = sorted(kernel for kernel in kernels if after[kernel] != before[kernel])
    assert changed == ["envs/dogfight/kernels.py"]
    with open(package_copy / "common" / "rotations.py", "a") as file:
        file.write("# edited: every vehicle's rotations\n")
    assert all(value != after[kernel] for kernel, value in digests().items())


def test_the_user_cache_home_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache_home() == tmp_path
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # invalid per the spec
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert user_cache_home() == tmp_path / "home" / ".cache"


# ---------------------------------------------------------------------------- the locator
def test_the_locator_claims_package_files_only(monkeypatch, tmp_path):
    monkeypatch.setattr(PackageCacheLocator, "root", tmp_path / "root")
    locator = PackageCacheLocator.from_function(angles.wrap_angle, angles.__file__)
    digest = module_digest(angles.__file__)
    assert locator.get_cache_path() == str(module_folder(angles.__file__, digest,
                                                         tmp_path / "root"))
    assert locator.get_source_stamp() == digest  # not the file's time: reinstalls load
    assert PackageCacheLocator.from_function(json.dumps, json.__file__) is None


def test_numba_cache_dir_is_left_to_numba(monkeypatch, tmp_path):
    monkeypatch.setattr(PackageCacheLocator, "root", tmp_path / "root")
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    assert PackageCacheLocator.from_function(angles.wrap_angle, angles.__file__) is None


def test_an_unwritable_folder_falls_back_to_the_process_folder(monkeypatch, tmp_path):
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(PackageCacheLocator, "root", tmp_path / "file" / "root")
    monkeypatch.setattr(PackageCacheLocator, "process_folder", tmp_path / "process")
    locator = PackageCacheLocator.from_function(angles.wrap_angle, angles.__file__)
    assert locator.get_cache_path() == str(
        module_folder(angles.__file__, module_digest(angles.__file__), tmp_path / "process"))


def test_the_locator_is_first_in_numbas_list():
    from numba.core.caching import CacheImpl

    assert CacheImpl._locator_classes[0] is PackageCacheLocator
    assert kernel_cache.register_cache_locator() == PackageCacheLocator.root  # once only
    assert CacheImpl._locator_classes.count(PackageCacheLocator) == 1


def test_no_cached_kernel_calls_numbas_thread_id():
    # numba.get_thread_id() compiles to an address of this process: a kernel that calls it,
    # loaded from the cache by another process, crashes (numba 0.68). Every kernel here is
    # cached, so none may call it.
    package = Path(kernel_cache.__file__).resolve().parents[1]
    callers = [str(path.relative_to(package)) for path in sorted(package.rglob("*.py"))
               if "get_thread_id" in path.read_text()]
    assert callers == []
