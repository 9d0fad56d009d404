"""Silencing what PyBullet's C code prints past Python's streams."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator

try:
    _LIBC = ctypes.CDLL(None)  # the C library already loaded (POSIX); flushes printf buffers
except (OSError, TypeError):
    _LIBC = None


@contextlib.contextmanager
def quiet_native_output() -> Iterator[None]:
    """Send file descriptors 1 and 2 to the null device while the block runs.

    PyBullet prints its build banner to stderr on import and ``argv[0]=`` to stdout on
    every connection, from C, past ``sys.stdout``/``sys.stderr``: only redirecting the
    descriptors silences them. C's buffers are flushed before the descriptors come back, so
    nothing leaks out later. Python exceptions are unaffected (they are raised, not
    printed, inside the block). Where the C library cannot be reached (not POSIX) or a
    descriptor is unusable, the block runs unchanged.
    """
    if _LIBC is None:
        yield
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        saved = [os.dup(1), os.dup(2)]
    except (OSError, ValueError, AttributeError):  # no usable descriptors (embedded, closed)
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        _LIBC.fflush(None)
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)
