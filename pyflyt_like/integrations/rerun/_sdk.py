"""The Rerun SDK, imported on demand, and where a recording goes (an ``.rrd`` file written
atomically, or a running viewer).

Nothing here imports ``rerun`` at module import: the command line offers ``--rerun`` (and
reports the missing extra in one line) without the viz extra installed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlparse

from pyflyt_like.common.atomic_files import FileWriteError, check_file_destination, fsync_directory

INSTALL_HINT = 'Rerun recordings need the viz extra: pip install "pyflyt_like[viz]"'
#: The rerun-sdk versions this integration was tested with (the viz extra pins them too):
#: Rerun's Python API changes between minor versions.
TESTED_VERSIONS = ">=0.41,<0.42"
APPLICATION_ID = "pyflyt_like"
#: The address ``rerun`` (the viewer) listens on by default.
DEFAULT_VIEWER_URL = "rerun+http://127.0.0.1:9876/proxy"
#: The timeline every recording of this package uses: simulated time [s].
TIMELINE = "sim_time"


def import_rerun() -> ModuleType:
    """The ``rerun`` module, or an ImportError naming the viz extra (the cause kept)."""
    try:
        import rerun
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    return rerun


def check_rrd_path(path: str | os.PathLike, name: str = "path") -> Path:
    """``path`` checked (creating nothing) to name an ``.rrd`` file in an existing writable
    folder; ``name`` is how it is called in messages.

    Raises:
        TypeError: ``path`` is not a str or os.PathLike.
        ValueError: not an ``.rrd`` name, or an existing folder.
        FileWriteError: the folder is missing or not writable.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be the path (str or os.PathLike) of an .rrd file, got "
                        f"{path!r}")
    return check_file_destination(path, ".rrd", name)


def check_viewer(url: str = DEFAULT_VIEWER_URL, name: str = "--rerun") -> str:
    """``url`` if a Rerun viewer accepts connections there (a TCP connect, 1 s timeout).

    Raises:
        ConnectionError: nobody listens there; the message says how to start a viewer or to
            give a file instead.
    """
    address = urlparse(url.replace("rerun+http", "http", 1))
    host, port = address.hostname or "127.0.0.1", address.port or 9876
    try:
        with socket.create_connection((host, port), timeout=1.0):
            pass
    except OSError:
        raise ConnectionError(f"{name}: no Rerun viewer is running at {host}:{port}; start one "
                              "with `rerun` (from the viz extra) or give a FILE.rrd") from None
    return url


class Sink:
    """A recording stream and where it goes: an ``.rrd`` file written atomically (into a
    hidden temporary sibling, renamed over the path by :meth:`close`), a running viewer
    (``path=None``), or a stream the caller made and owns (``stream=``).

    Args:
        path: the ``.rrd`` file, checked as :func:`check_rrd_path`; ``None``: the viewer at
            ``url`` (checked to be running).
        recording_id: the recording's id (e.g. one per episode); default a random one.
        blueprint: the layout sent with the recording.
        stream: use this ``rr.RecordingStream`` as given (``path`` and ``url`` ignored);
            :meth:`close` only flushes it.
        url: the viewer's address when ``path`` is None.
        name: how ``path`` is called in messages.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, recording_id: str | None = None,
                 blueprint: Any = None, stream: Any = None, url: str = DEFAULT_VIEWER_URL,
                 name: str = "path"):
        rr = import_rerun()
        self.path: Path | None = None
        self._temporary: Path | None = None
        self._owned = stream is None
        if stream is not None:
            if not isinstance(stream, rr.RecordingStream):
                raise TypeError(f"stream must be a rerun.RecordingStream, got {stream!r}")
            self.stream = stream
            if blueprint is not None:
                stream.send_blueprint(blueprint)
            return
        if path is not None:
            self.path = check_rrd_path(path, name)
        else:
            check_viewer(url, name)
        self.stream = rr.RecordingStream(APPLICATION_ID, recording_id=recording_id)
        if self.path is not None:
            self._temporary = self.path.with_name(f".{self.path.name}.{secrets.token_hex(6)}.tmp")
            try:
                self.stream.save(self._temporary, default_blueprint=blueprint)
            except Exception as error:  # the SDK reports I/O failures as its own errors
                self._remove_temporary()
                raise FileWriteError(f"cannot write {self.path}: {error}") from None
        else:
            self.stream.connect_grpc(url, default_blueprint=blueprint)

    def close(self) -> Path | None:
        """Flush everything; for a file, move it into place. Return the file's path (None
        for a viewer or a caller's stream). Safe to call twice.

        Raises:
            FileWriteError: the file cannot be completed or moved (nothing is left at the
                path then; the temporary file is removed).
        """
        stream = self.stream
        if not self._owned:
            stream.flush()
            return None
        if self._temporary is None:
            if stream is not None:
                stream.flush()
                self.stream = None
            return self.path
        temporary, self._temporary = self._temporary, None
        try:
            stream.flush()
            stream.disconnect()  # writes the file's footer and closes it
            os.replace(temporary, self.path)
        except Exception as error:
            _remove(temporary)
            reason = getattr(error, "strerror", None) or str(error)
            raise FileWriteError(f"cannot write {self.path}: {reason}") from None
        fsync_directory(self.path.parent)
        return self.path

    def discard(self) -> None:
        """Stop recording and leave no file (after a failure)."""
        if self._temporary is not None:
            with contextlib.suppress(Exception):
                self.stream.disconnect()
            self._remove_temporary()

    def _remove_temporary(self) -> None:
        if self._temporary is not None:
            _remove(self._temporary)
            self._temporary = None


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
