"""Atomic file writing: the old file or the whole new one, never half; failures named."""

from __future__ import annotations

import errno
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from pyflyt_like.common.atomic_files import (
    FileWriteError,
    check_file_destination,
    fsync_directory,
    prepare_output_folder,
    trial_write,
    write_atomically,
)
from tests.unwritable import refuse_writes_in

ON_LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")


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


# ------------------------------------------------------------------ where a file will go
def test_the_trial_write_leaves_nothing_and_an_existing_file_untouched(tmp_path):
    target = tmp_path / "data.txt"
    trial_write(target)
    assert list(tmp_path.iterdir()) == []
    target.write_text("old content")
    trial_write(target)
    assert target.read_text() == "old content" and list(tmp_path.iterdir()) == [target]


def test_a_failed_trial_write_removes_its_file_and_raises_the_systems_error(tmp_path,
                                                                           monkeypatch):
    def full_disk(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)):
        trial_write(tmp_path / "data.txt")
    assert list(tmp_path.iterdir()) == []


@ON_LINUX
def test_a_folder_where_even_root_cannot_create_a_file_is_refused():
    # /proc passes os.access for root (who runs CI), but no file can be created there
    with pytest.raises(OSError):
        trial_write("/proc/x.acmi")
    with pytest.raises(FileWriteError, match=r"^--acmi /proc/x\.acmi: no file can be written "
                                             r"in its folder /proc \(.+\)$"):
        check_file_destination("/proc/x.acmi", ".acmi", "--acmi")
    with pytest.raises(FileWriteError, match=r"^--out /proc/runs cannot be created \(.+\)$"):
        prepare_output_folder("/proc/runs", "--out")
    with pytest.raises(FileWriteError, match=r"^--out /proc is not writable \(.+\)$"):
        prepare_output_folder("/proc", "--out")


def test_check_file_destination_names_every_refusal(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    (tmp_path / "dir.h").mkdir()
    for path, error, match in [
            (tmp_path / "x.txt", ValueError, r"--out must name an \.h file, got '.*x\.txt'"),
            (tmp_path / "dir.h", ValueError, r"--out .*dir\.h is a folder; give the path"),
            (tmp_path / "no" / "x.h", FileWriteError, r"its folder .*no does not exist"),
            (tmp_path / "file" / "x.h", FileWriteError, r"x\.h: .*file is not a folder")]:
        with pytest.raises(error, match=match):
            check_file_destination(path, ".h", "--out")
    refuse_writes_in(monkeypatch, tmp_path)
    with pytest.raises(FileWriteError, match=r"--out .*x\.h: no file can be written in its "
                                             r"folder .* \(Permission denied\)"):
        check_file_destination(tmp_path / "x.h", ".h", "--out")
    monkeypatch.undo()
    assert check_file_destination(tmp_path / "x.H", ".h", "--out") == tmp_path / "x.H"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.h", "file"]  # nothing left


def test_prepare_output_folder_makes_the_folder_or_names_why_not(tmp_path, monkeypatch):
    assert prepare_output_folder(tmp_path / "a" / "b", "--out") == tmp_path / "a" / "b"
    assert list((tmp_path / "a" / "b").iterdir()) == []  # made, and the trial file gone
    (tmp_path / "file").write_text("")
    with pytest.raises(FileWriteError, match=r"^--out .*file is a file, not a folder$"):
        prepare_output_folder(tmp_path / "file", "--out")
    with pytest.raises(FileWriteError, match=r"^--out .*file/runs cannot be created \(Not a "
                                             r"directory\)$"):
        prepare_output_folder(tmp_path / "file" / "runs", "--out")
    refuse_writes_in(monkeypatch, tmp_path / "a" / "b")
    with pytest.raises(FileWriteError, match=r"^--out .*b is not writable \(Permission "
                                             r"denied\)$"):
        prepare_output_folder(tmp_path / "a" / "b", "--out")


def test_a_nul_character_is_a_value_error_naming_the_path(tmp_path):
    with pytest.raises(ValueError, match=r"path must not contain a NUL character, got "
                                         r"'.*a\\x00b\.txt'"):
        write_atomically(tmp_path / "a\0b.txt", lambda stream: stream.write("x"))
    with pytest.raises(ValueError, match=r"--out must not contain a NUL character"):
        check_file_destination(tmp_path / "a\0b.txt", ".txt", "--out")
    assert list(tmp_path.iterdir()) == []
