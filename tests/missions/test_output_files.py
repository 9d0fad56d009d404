"""Every output of a mission that cannot be written is a ReportError naming the file."""

from __future__ import annotations

import errno
import os

import pytest

from pyflyt_like.common.atomic_files import FileWriteError
from pyflyt_like.missions import ReportError, report
from pyflyt_like.missions.output_files import write_output_file
from pyflyt_like.missions.sweep import SweepParameter, write_sweep_csv

MISSING = os.strerror(errno.ENOENT)


def test_a_failed_write_is_a_report_error_with_the_atomic_writers_message(tmp_path):
    target = tmp_path / "data.txt"

    def full_disk(stream):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(ReportError) as caught:
        write_output_file(target, full_disk)
    assert isinstance(caught.value, FileWriteError)
    assert str(caught.value) == f"cannot write {target}: {os.strerror(errno.ENOSPC)}"
    assert caught.value.reason == os.strerror(errno.ENOSPC)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("write", [
    lambda path: report.write_summary({"vehicles": []}, path),
    lambda path: write_sweep_csv([], [SweepParameter("speed", (1.0,))], path),
], ids=["summary", "sweep table"])
def test_the_report_and_sweep_writers_fail_with_a_report_error(tmp_path, write):
    path = tmp_path / "missing" / "out.file"
    with pytest.raises(ReportError) as caught:
        write(path)
    assert str(caught.value) == f"cannot write {path}: {MISSING}"
    assert list(tmp_path.iterdir()) == []
