"""Where a mission's outputs go: checking and preparing the folder, writing into it safely.

Every failure to write an output (a report file, the sweep table, the video) is a
:class:`ReportError` with a one-line message naming the place, raised before a flight when
it can be foreseen (:func:`check_output_folder`, which creates and removes a trial file
there). Files are written atomically (:func:`write_output_file`), and :func:`fill_folder`
puts a set of files into a folder all-or-nothing: a failure (a full disk, an error in a
plot) leaves the folder as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from pyflyt_like.common.atomic_files import (
    FileWriteError,
    fsync_directory,
    prepare_output_folder,
    trial_write,
    write_atomically,
)

PathLike = str | os.PathLike


class ReportError(FileWriteError):
    """The report cannot be written where asked; the message is one line naming the place.

    ``reason`` is the bare cause (e.g. ``No space left on device``) where there is one.
    """


def _report_error(message: str, reason: str) -> ReportError:
    error = ReportError(f"{message}: {reason}")
    error.reason = reason
    return error


class OutputFolderIsAFileError(ReportError, NotADirectoryError):
    """The output folder given is an existing file."""


def write_output_file(path: PathLike, write: Callable[[IO], None],
                      binary: bool = False) -> Path:
    """:func:`~pyflyt_like.common.atomic_files.write_atomically` (same arguments and
    return), failing with the report's own error.

    Raises:
        ReportError: the file cannot be written (``path`` is left untouched). Other
            exceptions of ``write`` propagate unchanged.
    """
    try:
        return write_atomically(path, write, binary)
    except FileWriteError as error:
        failure = ReportError(str(error))  # the same message: "cannot write <path>: <reason>"
        failure.reason = error.reason
        raise failure from None


def fill_folder(folder: PathLike, write: Callable[[Path], list[Path]]) -> list[Path]:
    """Write files into ``folder`` all-or-nothing; return their paths there.

    ``write`` is called with an empty staging sub-folder of ``folder`` and returns the
    files it wrote into it. Only once it has returned is each moved into ``folder`` with
    :func:`os.replace` (replacing a same-named file of an earlier run). The staging folder
    is removed in every case, so a failure while writing leaves ``folder`` as it was:
    nothing in it is lost, changed or half-written, and no temporary file remains. Other
    files are never touched.

    Args:
        folder: created (with its parents) if missing.
        write: writes the files into the folder it is given; returns their paths.

    Returns:
        the files' paths in ``folder``, in the order ``write`` returned them.

    Raises:
        ReportError: ``folder`` is a file (:class:`OutputFolderIsAFileError`), cannot be
            created, is not writable, or ``write`` raised an OSError (e.g. the disk is full).
            Other exceptions of ``write`` propagate unchanged (after the clean-up).
    """
    folder = prepare_folder(folder)
    try:
        staging = Path(tempfile.mkdtemp(prefix=".report-staging-", dir=folder))
    except OSError as error:
        raise ReportError(f"output folder {folder} is not writable "
                          f"({error.strerror or error})") from None
    try:
        try:
            staged = write(staging)
        except OSError as error:
            reason = getattr(error, "reason", None) or error.strerror or str(error)
            raise _report_error(f"cannot write the files into output folder {folder}",
                                reason) from None
        written = []
        for path in staged:
            target = folder / path.name
            try:
                os.replace(path, target)
            except OSError as error:
                raise _report_error(f"cannot move {path.name} into output folder {folder}",
                                    error.strerror or str(error)) from None
            written.append(target)
        fsync_directory(folder)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def prepare_folder(folder: PathLike) -> Path:
    """``folder`` as a Path, created with its parents if missing, proved writable by
    creating and removing a trial file there
    (:func:`~pyflyt_like.common.atomic_files.prepare_output_folder`).

    Raises:
        OutputFolderIsAFileError: it is a file.
        ReportError: it cannot be created or no file can be written into it.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputFolderIsAFileError(f"output folder {folder} is a file, not a folder")
    try:
        return prepare_output_folder(folder, "output folder")
    except FileWriteError as error:
        raise ReportError(str(error)) from None


def check_output_folder(folder: PathLike) -> Path:
    """Check, leaving nothing behind, that :func:`fill_folder` could write into ``folder``.

    For use before a long run: ``folder`` must be a folder where a file can be written, or
    not exist yet with its nearest existing ancestor a folder where one can be written (so
    that it can be created). Writable means a trial file was created and removed there
    (:func:`~pyflyt_like.common.atomic_files.trial_write`): permission bits pass root
    also where nothing can be created (``/proc``, a read-only file system).

    Raises:
        OutputFolderIsAFileError: ``folder``, or the ancestor it would be created in, is a
            file.
        ReportError: it is not writable, or cannot be created.
    """
    folder = Path(folder)
    existing = folder
    try:
        while not (existing.exists() or existing.is_symlink()) and existing.parent != existing:
            existing = existing.parent
        is_folder = existing.is_dir()
    except OSError as error:  # e.g. a parent that may not be searched
        raise ReportError(f"output folder {folder} cannot be checked "
                          f"({error.strerror or error})") from None
    if existing == folder:
        if not is_folder:
            raise OutputFolderIsAFileError(f"output folder {folder} is a file, not a folder")
        try:
            trial_write(folder / "trial")
        except OSError as error:
            raise ReportError(f"output folder {folder} is not writable "
                              f"({error.strerror or error})") from None
        return folder
    if not is_folder:
        raise OutputFolderIsAFileError(f"output folder {folder} cannot be created: {existing} "
                                       "is a file, not a folder")
    try:
        trial_write(existing / "trial")  # creating a file there: as creating the folder
    except OSError as error:
        raise ReportError(f"output folder {folder} cannot be created: {existing} is not "
                          f"writable ({error.strerror or error})") from None
    return folder
