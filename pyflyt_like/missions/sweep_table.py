"""The sweep's table: its columns, the CSV written atomically, and where it goes.

The path asked for is checked (:func:`check_table_path`) and tried by writing a trial file
(:func:`claim_table_path`) before anything flies. If it still fails once the points have
flown, :func:`save_table` puts the table in a fallback file instead of losing it.
"""

from __future__ import annotations

import contextlib
import csv
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pyflyt_like.common.atomic_files import trial_write

from .errors import short_repr
from .output_files import ReportError, check_output_folder, prepare_folder, write_output_file
from .sweep_flying import RESULT_COLUMNS
from .sweep_parameters import SEED, SweepError, SweepParameter, SweepTypeError, format_value


def sweep_columns(parameters: Sequence[SweepParameter]) -> list[str]:
    """The table's header: ``point``, the parameter names, ``seed``, :data:`RESULT_COLUMNS`."""
    return ["point", *(p.name for p in parameters if p.name != SEED), SEED, *RESULT_COLUMNS]


def write_sweep_table(stream: IO, rows: Sequence[dict[str, Any]],
                      parameters: Sequence[SweepParameter]) -> None:
    """Write the rows as CSV to a text stream (lists as JSON text, None as an empty cell;
    text that UTF-8 cannot encode, such as a file name's undecodable bytes in an error,
    backslash-escaped)."""
    columns = sweep_columns(parameters)
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[_encodable(format_value(row.get(column))) for column in columns]
                      for row in rows])


def write_sweep_csv(rows: Sequence[dict[str, Any]], parameters: Sequence[SweepParameter],
                    path: str | Path) -> Path:
    """Write the rows as CSV atomically (as :func:`write_sweep_table`).

    Raises:
        ReportError: the file cannot be written (its folder must exist).
    """
    return write_output_file(path, lambda stream: write_sweep_table(stream, rows, parameters))


def _encodable(text: str) -> str:
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# ------------------------------------------------------------------ where the table goes
NAME_MAX = 255
"""Longest file or folder name [bytes] on the usual file systems (ext4, XFS, Btrfs, APFS,
NTFS); a file system with a shorter limit is found by the trial write."""

TEMPORARY_EXTRA = len(".") + len(".0123456789ab.tmp")
"""Characters the atomic writer's temporary sibling ``.NAME.<12 hex digits>.tmp`` adds to
the table's name: the name must leave room for them."""


def check_table_path(name: str, path: Any) -> Path:
    """Check, leaving nothing behind, that the table can be written to ``path``.

    ``path`` must be text or a path (not bytes) ending in ``.csv``, not a folder and not
    ending in ``/``, free of NUL characters, with every folder name at most
    :data:`NAME_MAX` bytes and the file name at most ``NAME_MAX - TEMPORARY_EXTRA``; its
    folder must exist or be creatable (:func:`check_output_folder`, which creates and
    removes a trial file there). ``name`` (e.g. ``--output``) starts the messages.

    Raises:
        SweepTypeError: ``path`` is not text or a path.
        SweepError: any other problem, in one line.
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise SweepTypeError(f"{name} must be the path of a .csv file, got {short_repr(path)}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise SweepError(f"{name} must be the path of a .csv file, got {short_repr(text)}")
    if "\0" in text:
        raise SweepError(f"{name} must not contain a NUL character, got {short_repr(text)}")
    if text.endswith(tuple(filter(None, (os.sep, os.altsep)))):
        raise SweepError(f"{name} names a folder (it ends with {text[-1]!r}); give the path "
                         f"of a .csv file, got {path_text(text)}")
    table = Path(text)
    if table.suffix.lower() != ".csv":
        raise SweepError(f"{name} must be a .csv file, got {path_text(text)}")
    for folder in table.parent.parts:
        if len(os.fsencode(folder)) > NAME_MAX:
            raise SweepError(f"{name}: the folder name {short_repr(folder)} is "
                             f"{len(os.fsencode(folder))} bytes long; at most {NAME_MAX} are "
                             "allowed")
    most = NAME_MAX - TEMPORARY_EXTRA
    if len(os.fsencode(table.name)) > most:
        raise SweepError(f"{name}: the file name {short_repr(table.name)} is "
                         f"{len(os.fsencode(table.name))} bytes long; at most {most} are "
                         f"allowed (it is written through a temporary file .NAME.XXXX.tmp "
                         f"of at most {NAME_MAX} bytes)")
    try:
        if table.is_dir():
            raise SweepError(f"{name} is a folder; give the path of a .csv file, got "
                             f"{path_text(text)}")
        check_output_folder(table.parent)
    except ReportError as error:
        raise SweepError(f"{name}: {error}") from None
    except OSError as error:  # e.g. a path longer than the system allows
        raise SweepError(f"{name} {path_text(text)} cannot be checked: "
                         f"{error.strerror or error}") from None
    return table


def claim_table_path(name: str, table: Path) -> None:
    """Before flying, create the table's folder and write and remove a trial file there
    (:func:`~pyflyt_like.common.atomic_files.trial_write`).

    The trial file is named like the atomic writer's temporary file (as long, in the same
    folder), so a name the file system refuses, a folder where files cannot be created
    (even by root: a read-only file system, a full disk) and one that cannot be made are
    found before the flights, not after them. An existing table is left untouched. Folders
    created here are removed again when the trial fails.

    Raises:
        SweepError: one line naming ``name``, the path and the reason.
    """
    created: list[Path] = []
    try:
        created = _missing_folders(table.parent)
        table.parent.mkdir(parents=True, exist_ok=True)
        trial_write(table)
    except OSError as error:  # ReportError too
        for folder in created:
            with contextlib.suppress(OSError):
                folder.rmdir()
        reason = getattr(error, "strerror", None) or str(error)
        raise SweepError(f"{name} {path_text(table)} cannot be written: {reason}") from None


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet, deepest first."""
    missing = []
    while not (folder.exists() or folder.is_symlink()) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing


@dataclass(frozen=True)
class SavedTable:
    """Where :func:`save_table` put the table: ``path`` (None: nowhere) and, when that is not
    the path asked for, ``failure``, why that path failed."""

    path: Path | None
    failure: str | None = None


def save_table(rows: Sequence[dict[str, Any]], parameters: Sequence[SweepParameter],
               table: Path) -> SavedTable:
    """Write the table to ``table`` (creating its folder again if it was removed); if that
    fails, to a new timestamped file in the current folder, else in the temporary folder.

    Flown results are not given up because their path failed after the flights (the disk
    filled up, the folder was replaced by a file): the caller says where they went, or
    prints them when :attr:`SavedTable.path` is None.
    """
    try:
        prepare_folder(table.parent)
        return SavedTable(write_sweep_csv(rows, parameters, table))
    except OSError as error:  # ReportError too
        failure = getattr(error, "reason", None) or error.strerror or str(error)
    for fallback in fallback_paths(table):
        try:
            return SavedTable(write_sweep_csv(rows, parameters, fallback), failure)
        except OSError:
            continue
    return SavedTable(None, failure)


def fallback_paths(table: Path) -> list[Path]:
    """New files for a table that cannot go to ``table``: ``STEM_YYYYmmdd-HHMMSS.csv`` (the
    stem cut to 80 characters) in the current folder, then in the temporary folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"{table.stem[:80]}_{stamp}"
    folders = []
    with contextlib.suppress(OSError):  # the current folder may have been removed
        folders.append(Path.cwd())
    folders.append(Path(tempfile.gettempdir()))
    paths = []
    for folder in folders:
        candidate, number = folder / f"{name}.csv", 1
        while candidate.exists() and number < 100:
            candidate, number = folder / f"{name}-{number}.csv", number + 1
        paths.append(candidate)
    return paths


def path_text(path: Any) -> str:
    """A path for a one-line message: undecodable bytes escaped, cut in the middle past 120
    characters."""
    text = _encodable(str(path))
    return text if len(text) <= 120 else f"{text[:58]}...{text[-59:]}"
