"""docs/architecture.md's layer diagram is the import-linter contract of pyproject.toml."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_diagram_is_the_layers_contract():
    # the one layers contract's list (TOML strings are Python literals here)
    toml = (ROOT / "pyproject.toml").read_text()
    layers = ast.literal_eval(re.search(r'type = "layers"\nlayers = (\[.*?\])', toml,
                                        re.S).group(1))
    expected = [" | ".join(name.strip().removeprefix("pyflyt_like.")
                           for name in layer.split("|")) for layer in layers]
    page = (ROOT / "docs" / "architecture.md").read_text()
    block = re.search(r"<!-- layers:.*?-->\s*```text\n(.*?)```", page, re.S)
    assert block, "docs/architecture.md lost its layer diagram"
    assert block.group(1).strip().splitlines() == expected


PAGE = ROOT / "docs" / "architecture.md"
#: A path the page names: under the package, tests/, docs/, scripts/ or benchmarks/, or a
#: file of a package folder (``batch/options.py``), in backticks or in a tree block.
NAMED_PATH = re.compile(r"`((?:pyflyt_like|tests|docs|scripts|benchmarks|examples)/[\w./<>-]*"
                        r"|(?:[a-z_]+/)+[a-z_<>]+\.(?:py|yaml|md))(?:::\w+)?`")


def package_folders() -> list[str]:
    """Every folder of the package that is a Python package, as ``pyflyt_like/.../``."""
    return sorted(f"{path.parent.relative_to(ROOT).as_posix()}/"
                  for path in (ROOT / "pyflyt_like").rglob("__init__.py"))


def tree_block() -> list[str]:
    page = PAGE.read_text()
    block = re.search(r"<!-- tree:.*?-->\s*```text\n(.*?)```", page, re.S)
    assert block, "docs/architecture.md lost its tree of the package"
    return [line.split()[0] for line in block.group(1).strip().splitlines()]


def test_the_tree_names_every_package_folder_once_and_nothing_else():
    named = tree_block()
    assert len(named) == len(set(named)), "a folder is named twice"
    folders = set(package_folders()) | {"pyflyt_like/models/"}
    assert set(named) == folders


def _exists(path: str) -> bool:
    """Whether ``path`` exists: relative to the repository, or to the package (a path of a
    package folder, ``batch/options.py``); ``<name>`` stands for a file a checklist
    creates, whose folder must exist."""
    if "<" in path:
        path = path[:path.index("<")].rsplit("/", 1)[0]
    return any((base / path).exists() for base in (ROOT, ROOT / "pyflyt_like",
                                                   ROOT / "pyflyt_like" / "envs"))


def test_every_path_the_page_names_exists():
    page = PAGE.read_text()
    named = {match.group(1).rstrip("/.") for match in NAMED_PATH.finditer(page)}
    assert len(named) > 80, "the page names too few paths: has NAMED_PATH stopped matching?"
    missing = sorted(path for path in named if not _exists(path))
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"
