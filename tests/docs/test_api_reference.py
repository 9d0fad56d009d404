"""The generated API reference documents every public name of every public module."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from api_pages import PUBLIC_MODULES, api_page  # noqa: E402


def _resolve(path: str):
    module_name, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), name)


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_name_has_an_entry_that_resolves(module_name):
    module = importlib.import_module(module_name)
    page = api_page(module_name)
    assert len(page.entries) == len(module.__all__) > 0
    for name, path in zip(module.__all__, page.entries):
        assert _resolve(path) is getattr(module, name)
        assert f"::: {path}\n" in page.markdown


def test_every_public_class_and_function_has_a_docstring():
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value):
                assert (value.__doc__ or "").strip(), f"{module_name}.{name} has no docstring"
