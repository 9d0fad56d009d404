"""The layer rules of docs/architecture.md hold: import-linter's contracts in pyproject.toml
(each package imports only the layers below it, the pure maths imports neither pybullet nor
numba, the batched engine no pybullet), and the batched engine names none of its clients."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                               "sys.exit(lint_imports())"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_the_batched_engine_names_no_client_path():
    """A string path is no import, so import-linter cannot see it: look for one."""
    clients = ("envs", "missions", "training", "integrations")
    batch = ROOT / "pyflyt_like" / "batch"
    paths = sorted(batch.rglob("*.py"))  # every subpackage too, as batch/fixedwing/
    assert batch / "fixedwing" / "family.py" in paths
    for path in paths:
        source = path.read_text()
        name = path.relative_to(ROOT).as_posix()
        for client in clients:
            assert f'"{client}"' not in source and f"pyflyt_like.{client}" not in source \
                and f"/ \"{client}\"" not in source, f"{name} names {client}"
