"""No code outside tests/ imports from it: the package, the scripts, the examples and the
benchmarks import what they share with the tests from the package (a reference flight
lives in ``pyflyt_like.estimation.reference_flight``, not in a test module)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("pyflyt_like", "scripts", "examples", "benchmarks")
LOADERS = {"import_module", "__import__"}


def _is_tests(module: str | None) -> bool:
    return module is not None and (module == "tests" or module.startswith("tests."))


def imports_of_tests(source: str) -> list[int]:
    """The lines of ``source`` that import the ``tests`` package: ``import tests...``,
    ``from tests... import``, ``importlib.import_module("tests...")``, ``__import__``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found = any(_is_tests(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found = node.level == 0 and _is_tests(node.module)
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            found = (name in LOADERS and bool(node.args)
                     and isinstance(node.args[0], ast.Constant)
                     and isinstance(node.args[0].value, str) and _is_tests(node.args[0].value))
        else:
            continue
        if found:
            lines.append(node.lineno)
    return lines


def _sources() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py"))


def test_no_file_outside_tests_imports_tests():
    sources = _sources()
    assert ROOT / "scripts" / "plot_estimation.py" in sources
    assert len(sources) > 100
    offenders = [f"{path.relative_to(ROOT).as_posix()}:{line}" for path in sources
                 for line in imports_of_tests(path.read_text(encoding="utf-8"))]
    assert not offenders, f"these import from tests/: {offenders}"


@pytest.mark.parametrize("source", [
    "import tests",
    "import tests.estimation.run as run",
    "import numpy, tests.core",
    "from tests import extras",
    "from tests.core.test_estimate_flight import fly_figure_eight",
    "def f():\n    from tests.estimation import figure_eight",
    "import importlib\nimportlib.import_module('tests.estimation')",
    "__import__('tests')",
])
def test_the_scan_finds_an_import_of_tests(source):
    assert imports_of_tests(source)


@pytest.mark.parametrize("source", [
    "import testsuite",
    "from pytest import approx",
    "from . import tests",
    "from .tests import helper",
    "from pyflyt_like.tests import x",
    "path = 'tests/estimation'",
])
def test_the_scan_lets_other_imports_be(source):
    assert not imports_of_tests(source)
