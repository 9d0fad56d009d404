"""Without PyTorch, importing pyflyt_like.training fails with the install line of the rl extra.

Runs in a subprocess where ``torch`` is hidden, so it runs (and must pass) whether or not
torch is installed.
"""

from __future__ import annotations

import subprocess
import sys

HIDE_TORCH_AND_IMPORT = """
import sys
sys.modules["torch"] = None  # makes every "import torch" raise ImportError
try:
    {statement}
except ImportError as error:
    print(type(error).__name__)
    print(error)
    print(type(error.__cause__).__name__)
else:
    print("imported")
"""


def _import_without_torch(statement: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", HIDE_TORCH_AND_IMPORT.format(
        statement=statement)], capture_output=True, text=True, timeout=120, check=True)
    return result.stdout.splitlines()


def test_importing_training_without_torch_names_the_rl_extra():
    kind, message, cause = _import_without_torch("import pyflyt_like.training")
    assert kind == "ImportError"
    assert message == 'pyflyt_like.training needs PyTorch: pip install "pyflyt_like[rl]"'
    assert cause == "ModuleNotFoundError"  # the original error is chained


def test_the_old_module_path_fails_the_same_way():
    kind, message, _ = _import_without_torch(
        "from pyflyt_like.training.ppo import PPOPolicy")
    assert kind == "ImportError" and 'pip install "pyflyt_like[rl]"' in message
