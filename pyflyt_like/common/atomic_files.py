"""Writing a file atomically: a reader sees the old file or the complete new one, never half.

The new content goes to a temporary sibling (same folder, so the rename cannot cross file
systems), is fsync'ed, then :func:`os.replace`d over the target, and the rename is made
durable by fsync'ing the folder. A failure at any point removes the temporary file and
leaves the target untouched.
"""

from __future__ import annotations

import contextlib
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
        FileWriteError: the temporary file cannot be created, written or renamed (any
            OSError, also one raised by ``write``). Other exceptions of ``write`` propagate
            unchanged. In every failure the temporary file is removed and ``path`` is left
            untouched.
    """
    path = Path(path)
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


def check_file_destination(path: str | os.PathLike, suffix: str, name: str,
                           error: type[FileWriteError] = FileWriteError) -> Path:
    """``path`` as a Path, checked before anything is computed to write there: a file
    name ending in ``suffix`` (any case), not a folder, in an existing writable folder.

    Args:
        suffix: e.g. ``".mp4"``; name: how the path is called in messages; error: the
            :class:`FileWriteError` subclass raised for the folder.

    Raises:
        ValueError: a wrong suffix or an existing folder.
        FileWriteError (``error``): the folder is missing, not a folder or not writable.
    """
    path = Path(path)
    if path.suffix.lower() != suffix:
        raise ValueError(f"{name} must name an {suffix} file, got {str(path)!r}")
    if path.is_dir():
        raise ValueError(f"{name} {path} is a folder; give the path of an {suffix} file")
    folder = path.parent
    if not folder.exists():
        raise error(f"{name} {path}: its folder {folder} does not exist")
    if not folder.is_dir():
        raise error(f"{name} {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise error(f"{name} {path}: its folder {folder} is not writable")
    return path


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
