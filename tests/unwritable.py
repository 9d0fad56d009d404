"""Folders where no file can be created, for tests that run as root (as CI does): modes do
not bind root, so a folder is made unwritable by refusing, with EACCES, every file or folder
created directly in it (``os.open`` with ``O_CREAT``, ``os.mkdir``)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest


def refuse_writes_in(monkeypatch: pytest.MonkeyPatch, folder: str | os.PathLike) -> None:
    """Until the test ends, creating anything directly in ``folder`` fails as in a folder
    without write permission."""
    folder = Path(folder)
    real_open, real_mkdir = os.open, os.mkdir

    def denied(path) -> PermissionError:
        return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    def open_(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and Path(path).parent == folder:
            raise denied(path)
        return real_open(path, flags, *args, **kwargs)

    def mkdir(path, *args, **kwargs):
        if Path(path).parent == folder:
            raise denied(path)
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "mkdir", mkdir)
