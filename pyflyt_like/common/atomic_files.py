"""Writing a file atomically: a reader sees the old file or the complete new one, never half.

The new content goes to a temporary sibling (same folder, so the rename cannot cross file
systems), is fsync'ed, then :func:`os.replace`d over the target, and the rename is made
durable by fsync'ing the folder. A failure at any point removes the temporary file and
leaves the target untouched.

Where a file will go is checked before the work that makes it (:func:`trial_write`, used by
:func:`check_file_destination` and :func:`prepare_output_folder`): a trial file is created
and removed there, which proves more than permission bits (root passes those even where no
file can be created).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO


class FileWriteError(OSError):
    """A file cannot be written; the message is one line naming the file and the cause.

    ``reason`` is the bare cause (e.g. ``No space left on device``) where there is one.
    """

    reason: str | None = None


def _write_error(path: Path, error: OSError) -> FileWriteError:
    # The reason is set after construction (not an __init__ argument) so that the error
    # pickles like any OSError, e.g. across Ray workers.
    reason = error.strerror or str(error)
    failure = FileWriteError(f"cannot write {path}: {reason}")
    failure.reason = reason
    return failure


def write_atomically(path: str | os.PathLike, write: Callable[[IO], None],
                     binary: bool = False) -> Path:
    """Write a file through a temporary sibling, fsync it, and rename it over ``path``.

    Args:
        path: the file to (re)place; its folder must exist.
        write: called with the open temporary file (text, UTF-8, ``newline=""``; or binary).
        binary: open the temporary file in binary mode.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: ``path`` holds a NUL character (no file system takes one).
        FileWriteError: the temporary file cannot be created, written or renamed (any
            OSError, also one raised by ``write``). Other exceptions of ``write`` propagate
            unchanged. In every failure the temporary file is removed and ``path`` is left
            untouched.
    """
    path = _without_nul(path, "path")
    # os.open's mode (0o666 minus the umask) gives the file the permissions of any new file;
    # tempfile.mkstemp would make it 0o600. O_BINARY: no newline translation on Windows.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    temporary = _temporary_name(path)
    try:
        try:
            fd = os.open(temporary, flags, 0o666)
        except FileExistsError:  # lost a race for the random name: try another one once
            temporary = _temporary_name(path)
            fd = os.open(temporary, flags, 0o666)
    except OSError as error:
        raise _write_error(path, error) from None
    try:
        if binary:
            stream: IO = os.fdopen(fd, "wb")
        else:
            stream = os.fdopen(fd, "w", encoding="utf-8", newline="")
        with stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        _remove(temporary)
        raise _write_error(path, error) from None
    except BaseException:
        _remove(temporary)
        raise
    fsync_directory(path.parent)
    return path


def trial_write(path: str | os.PathLike) -> None:
    """Prove that :func:`write_atomically` can write ``path``: create, write a byte to and
    remove a trial file named like its temporary sibling (as long, in the same folder).

    Permission bits alone (``os.access``) say yes to root, also where no file can be created
    (a read-only or full file system, ``/proc``), and know nothing of a name the file system
    refuses; the trial finds those before a long run whose results would then be lost. The
    folder must exist; ``path`` itself is not touched (an existing file stays as it is).

    Raises:
        OSError: as the system raised it (the callers word the one-line message).
    """
    trial = _temporary_name(Path(path))
    fd = os.open(trial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o666)
    try:
        os.write(fd, b"\n")  # not synced: creating the file is what is being proved
    except BaseException:
        os.close(fd)
        _remove(trial)
        raise
    os.close(fd)
    os.unlink(trial)


def _without_nul(path: str | os.PathLike, name: str) -> Path:
    """``path`` as a Path; a ValueError naming ``name`` if it holds a NUL character (the
    system calls would raise a bare "embedded null byte")."""
    path = Path(path)
    if "\0" in str(path):
        raise ValueError(f"{name} must not contain a NUL character, got {str(path)!r}")
    return path


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def check_file_destination(path: str | os.PathLike, suffix: str, name: str,
                           error: type[FileWriteError] = FileWriteError) -> Path:
    """``path`` as a Path, checked before anything is computed to write there: a file
    name ending in ``suffix`` (any case), not a folder, in an existing folder where a file
    can be written (proved by :func:`trial_write`; nothing is left behind).

    Args:
        suffix: e.g. ``".mp4"``; name: how the path is called in messages; error: the
            :class:`FileWriteError` subclass raised for the folder.

    Raises:
        ValueError: a wrong suffix, an existing folder, or a NUL character in ``path``.
        FileWriteError (``error``): the folder is missing, not a folder, or no file can be
            written there (the message gives the system's reason).
    """
    path = _without_nul(path, name)
    if path.suffix.lower() != suffix:
        raise ValueError(f"{name} must name an {suffix} file, got {str(path)!r}")
    folder = path.parent
    try:
        is_folder, folder_exists, folder_is_folder = path.is_dir(), folder.exists(), \
            folder.is_dir()
    except OSError as failure:  # e.g. a name longer than the file system takes
        raise error(f"{name} {path} cannot be checked ({_reason(failure)})") from None
    if is_folder:
        raise ValueError(f"{name} {path} is a folder; give the path of an {suffix} file")
    if not folder_exists:
        raise error(f"{name} {path}: its folder {folder} does not exist")
    if not folder_is_folder:
        raise error(f"{name} {path}: {folder} is not a folder")
    try:
        trial_write(path)
    except OSError as failure:
        if failure.errno == errno.ENAMETOOLONG:
            raise error(f"{name} {path}: the file name is too long ({_reason(failure)}) for "
                        f"the temporary file .NAME.<12 hex digits>.tmp it is written "
                        f"through") from None
        raise error(f"{name} {path}: no file can be written in its folder {folder} "
                    f"({_reason(failure)})") from None
    return path


def prepare_output_folder(folder: str | os.PathLike, name: str) -> Path:
    """``folder`` as a Path, created with its parents if missing and proved writable by
    :func:`trial_write`: for a run's output folder, before the run.

    ``name`` starts the messages (e.g. ``--out`` or ``output folder``).

    Raises:
        FileWriteError: ``folder`` is a file, cannot be created, or no file can be written
            into it (one line naming it and the system's reason).
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise FileWriteError(f"{name} {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as failure:
        raise FileWriteError(f"{name} {folder} cannot be created ({_reason(failure)})"
                             ) from None
    try:
        trial_write(folder / "trial")
    except OSError as failure:
        raise FileWriteError(f"{name} {folder} is not writable ({_reason(failure)})") from None
    return folder


def fsync_directory(folder: str | os.PathLike) -> None:
    """Persist renames in ``folder`` (best effort: not every platform can open folders)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _temporary_name(path: Path) -> Path:
    """A hidden sibling of ``path`` with a random part (same folder: os.replace is atomic)."""
    return path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
