"""The generated API reference documents every public name of every public module, and is
generated without the optional dependencies (the docs extra has neither torch nor
stable-baselines3)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import require_extra

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))
from api_pages import PUBLIC_MODULES, all_api_pages, api_page, public_names  # noqa: E402

# Public modules, or single names, whose import needs an extra: (extra, module it imports).
NEEDS_EXTRA = {
    "pyflyt_like.training": ("rl", "torch"),
    "pyflyt_like.integrations.sb3": ("rl", "stable_baselines3"),
    "pyflyt_like.envs.to_sb3_vec_env": ("rl", "stable_baselines3"),
}
OPTIONAL_DEPENDENCIES = ("torch", "stable_baselines3", "ray")
PUBLIC_NAMES = [(module_name, name) for module_name in PUBLIC_MODULES
                for name in public_names(module_name)]


def _exported(module_name: str, name: str):
    """``module_name.name`` imported, or a skip (failure where CI requires the extra)."""
    for key in (f"{module_name}.{name}", module_name):
        if key in NEEDS_EXTRA:
            require_extra(*NEEDS_EXTRA[key])
    return getattr(importlib.import_module(module_name), name)


def _resolve(path: str):
    module_name, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), name)


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_name_has_an_entry(module_name):
    names = public_names(module_name)
    page = api_page(module_name)
    assert len(page.entries) == len(names) > 0
    for name, path in zip(names, page.entries):
        assert f"| `{name}` | `{path.rsplit('.', 1)[0]}` |" in page.markdown
        assert f"::: {path}\n    options:\n      heading: {name}\n" in page.markdown


@pytest.mark.parametrize(("module_name", "name"), PUBLIC_NAMES,
                         ids=[f"{module}.{name}" for module, name in PUBLIC_NAMES])
def test_the_entry_resolves_to_the_exported_object(module_name, name):
    value = _exported(module_name, name)
    assert public_names(module_name) == list(importlib.import_module(module_name).__all__)
    path = api_page(module_name).entries[public_names(module_name).index(name)]
    assert _resolve(path) is value


@pytest.mark.parametrize(("module_name", "name"), PUBLIC_NAMES,
                         ids=[f"{module}.{name}" for module, name in PUBLIC_NAMES])
def test_every_public_class_and_function_has_a_docstring(module_name, name):
    value = _exported(module_name, name)
    if callable(value):
        assert (value.__doc__ or "").strip(), f"{module_name}.{name} has no docstring"


def test_the_pages_are_made_without_the_optional_dependencies(tmp_path):
    """In a fresh interpreter where importing torch, stable-baselines3 or Ray fails, the pages
    are the same as here."""
    out = tmp_path / "pages.json"
    code = (f"import sys, json; sys.path.insert(0, {str(SCRIPTS)!r}); "
            f"sys.modules.update(dict.fromkeys({OPTIONAL_DEPENDENCIES!r})); "
            "from api_pages import all_api_pages; "
            f"open({str(out)!r}, 'w').write(json.dumps([p.markdown for p in all_api_pages()]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=SCRIPTS.parent)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text()) == [page.markdown for page in all_api_pages()]
