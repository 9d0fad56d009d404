"""Without stable-baselines3 the packages still import, and the SB3 adapter's import fails
with the install line of the rl extra (runs in every environment: the absence is simulated
in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A None entry in sys.modules makes ``import stable_baselines3`` fail as if it were absent.
BLOCK_SB3 = "import sys; sys.modules['stable_baselines3'] = None; "
INSTALL_LINE = 'pip install "pyflyt_like[rl]"'


def run_python(code: str) -> None:
    result = subprocess.run([sys.executable, "-c", BLOCK_SB3 + code], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr


def test_the_packages_import_without_sb3():
    run_python("import pyflyt_like.envs, pyflyt_like.integrations")


@pytest.mark.parametrize("access", ["import pyflyt_like.integrations.sb3",
                                    "import pyflyt_like.envs; pyflyt_like.envs.to_sb3_vec_env"])
def test_the_adapter_names_the_extra_and_keeps_the_cause(access):
    run_python(f"""
try:
    {access}
except ImportError as error:
    assert {INSTALL_LINE!r} in str(error), str(error)
    assert isinstance(error.__cause__, ImportError), repr(error.__cause__)
else:
    raise AssertionError('no ImportError')
""")
