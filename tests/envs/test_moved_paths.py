"""The module paths of pyflyt_like.envs before its family layout import for one release, as
the modules at their new paths, with a DeprecationWarning; the paths the docs show import
without one."""

from __future__ import annotations

import importlib
import re
import sys
import warnings
from pathlib import Path

import pytest

from pyflyt_like.envs._moved import MOVED
from pyflyt_like.envs.targets import waypoints

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md", *ROOT.glob("examples/*.py")])
IMPORT = re.compile(r"^\s*from (pyflyt_like\.envs[\w.]*) import (?:\(([\w,\s]+)\)|([\w, ]+))"
                    r"|^\s*import (pyflyt_like\.envs[\w.]*)", re.M)
DOTTED = re.compile(r"\bpyflyt_like\.envs(?:\.\w+)+")


def documented_paths() -> list[str]:
    """Every ``pyflyt_like.envs...`` name the docs, README and examples import or cite, but
    the old paths of :data:`MOVED` they cite as old (tested above, with their warning)."""
    found = set()
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in IMPORT.finditer(text):
            module, bracketed, names, plain = match.groups()
            if plain:
                found.add(plain)
            else:
                found |= {f"{module}.{name.strip()}" for name in (bracketed or names).split(",")
                          if name.strip()}
        found |= set(DOTTED.findall(text))
    return sorted(path for path in found
                  if not any(path == old or path.startswith(f"{old}.") for old in MOVED))


def resolve(path: str):
    """The module, or the attribute of a module, named by the dotted ``path``."""
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_is_the_module_at_its_new_path(old, new, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.deprecated_call(match=re.escape(f"moved to {new}")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new) is sys.modules[old]
    assert module.__name__ == new


def test_the_warning_names_the_importing_line(monkeypatch):
    monkeypatch.delitem(sys.modules, "pyflyt_like.envs.waypoints", raising=False)
    with pytest.deprecated_call() as record:
        from pyflyt_like.envs.waypoints import TARGET_BONUS
    assert [warning.filename for warning in record] == [__file__]
    assert TARGET_BONUS == waypoints.TARGET_BONUS


def test_unlisted_paths_are_not_found():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pyflyt_like.envs.no_such_module")


@pytest.mark.parametrize("path", documented_paths())
def test_every_documented_path_imports_without_a_warning(path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            assert resolve(path) is not None
        except ImportError as error:
            if "pip install" not in str(error):
                raise
            pytest.skip(f"{path} needs an extra: {error}")


def test_the_multirotor_twins_old_world_attribute_is_its_sim_with_a_warning():
    from pyflyt_like.envs.multirotor_tasks.twin_env import MultirotorTwinEnv

    twin = MultirotorTwinEnv("Hover")
    try:
        with pytest.deprecated_call(match=r"MultirotorTwinEnv.world is now "
                                          r"MultirotorTwinEnv.sim"):
            assert twin.world is twin.sim
    finally:
        twin.close()
