"""Atomic file writing: the old file or the whole new one, never half; failures named."""

from __future__ import annotations

import errno
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from pyflyt_like.common.atomic_files import FileWriteError, fsync_directory, write_atomically


def test_write_atomically_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "data.txt"
    target.write_text("old content")

    def half(stream):
        stream.write("new cont")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, half)
    assert target.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["data.txt"]
    write_atomically(target, lambda stream: stream.write(b"\x00new"), binary=True)
    assert target.read_bytes() == b"\x00new"
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_text_is_utf8_without_newline_translation(tmp_path):
    path = write_atomically(str(tmp_path / "t.csv"), lambda stream: stream.write("é,1\r\nx\n"))
    assert path == tmp_path / "t.csv"
    assert path.read_bytes() == "é,1\r\nx\n".encode()


def test_an_os_error_while_writing_is_a_one_line_file_write_error(tmp_path):
    target = tmp_path / "data.txt"
    target.write_text("old content")

    def full_disk(stream):
        stream.write("new")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(FileWriteError) as caught:
        write_atomically(target, full_disk)
    assert isinstance(caught.value, OSError)
    assert str(caught.value) == f"cannot write {target}: {os.strerror(errno.ENOSPC)}"
    assert caught.value.reason == os.strerror(errno.ENOSPC)
    assert target.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["data.txt"]


def test_a_missing_folder_is_a_file_write_error_and_creates_nothing(tmp_path):
    target = tmp_path / "missing" / "data.txt"
    with pytest.raises(FileWriteError, match=r"cannot write .*missing.data\.txt: ") as caught:
        write_atomically(target, lambda stream: stream.write("x"))
    assert caught.value.reason == os.strerror(errno.ENOENT)
    assert list(tmp_path.iterdir()) == []


def test_the_error_pickles_with_its_reason(tmp_path):
    with pytest.raises(FileWriteError) as caught:
        write_atomically(tmp_path / "missing" / "x", lambda stream: None)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is FileWriteError
    assert (str(copy), copy.reason) == (str(caught.value), caught.value.reason)


def test_fsync_directory_is_best_effort(tmp_path):
    fsync_directory(tmp_path)
    fsync_directory(tmp_path / "missing")  # cannot be opened: nothing to persist, no error


def test_the_module_imports_nothing_of_the_package_outside_common():
    code = ("import sys, pyflyt_like.common.atomic_files; "
            "print(' '.join(m for m in sys.modules if m.startswith('pyflyt_like.') "
            "and not m.startswith('pyflyt_like.common')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).parents[2], timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == []
