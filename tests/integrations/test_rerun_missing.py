"""Without rerun-sdk the packages still import, ``--rerun`` says which extra to install (exit
2, one line) and the recorders raise ImportError naming it (runs in every environment: the
absence is simulated in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A None entry in sys.modules makes ``import rerun`` fail as if it were absent.
BLOCK = "import sys; sys.modules['rerun'] = None; "
INSTALL_LINE = 'pip install "pyflyt_like[viz]"'


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True)


def test_the_package_imports_and_the_recorders_name_the_extra():
    result = run_python(f"""
import pyflyt_like.integrations.rerun as viz
try:
    viz.AviaryRecorder
except ImportError as error:
    assert {INSTALL_LINE!r} in str(error), str(error)
    assert isinstance(error.__cause__, ImportError), repr(error.__cause__)
else:
    raise AssertionError('no ImportError')
""")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("argv", [["fly", "--no-progress", "--rerun", "x.rrd"],
                                  ["replay", "log.csv", "--rerun", "x.rrd"]])
def test_the_flags_exit_2_naming_the_extra(tmp_path, argv):
    result = run_python(f"from pyflyt_like import cli; sys.exit(cli.main({argv!r}))")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and INSTALL_LINE in lines[0] and "--rerun" in lines[0], lines


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_an_rrd_path_where_even_root_cannot_write_is_refused_up_front():
    # checked before the SDK is imported: no rerun needed to be told
    from pyflyt_like.common.atomic_files import FileWriteError
    from pyflyt_like.integrations.rerun._sdk import check_rrd_path

    with pytest.raises(FileWriteError, match=r"--rerun /proc/x\.rrd: no file can be written "
                                             r"in its folder /proc \("):
        check_rrd_path("/proc/x.rrd", "--rerun")
