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
