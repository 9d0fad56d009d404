"""Where numba keeps pyflyt_like's compiled kernels: a per-user cache folder, never the package.

By default numba writes a function's cache (``*.nbi`` index, ``*.nbc`` machine code) into the
``__pycache__`` beside its source, inside the installed package. ``pip uninstall`` does not
know those files and leaves them; the folder left behind then imports as a namespace package
that shadows a later editable install. numba also keys a cached function on its own file
only, while the batched pipeline inlines functions of other files (its pull requests 8396
and 9563 to track them were not merged), so an edit to a called file alone would load stale
machine code.

:func:`register_cache_locator` puts :class:`PackageCacheLocator` first in numba's list of
cache locators. It claims every function whose source file lies inside this package and
caches it in ``<user cache>/pyflyt_like/numba/<install>/<pyXY>-numba<version>-<digest>/``
(:func:`cache_folder`). ``<digest>`` covers every source numba may compile here (see
:func:`sources_digest`), so an edit anywhere in them selects a new, empty folder: no stale
machine code, nothing to compare at import. The folders of older digests of the same
install and Python are deleted once idle. ``<install>`` names the package's folder, so two
checkouts of different sources do not delete each other's caches.

``NUMBA_CACHE_DIR``, if set, wins (numba's own locator then handles every function, and its
caches are keyed on each function's file only). If the user cache folder cannot be written,
the kernels are cached in a temporary folder for this process only (numba without any
writable locator raises at the decorator instead of compiling in memory). See docs/batch.md.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numba
from numba.core import caching, event

PACKAGE = Path(__file__).resolve().parent.parent
# Packages of plain-Python functions that the kernels compile with ``njit(...)(function)``:
# their modules never mention njit, yet an edit to them changes the machine code.
MATHS_PACKAGES = ("common", "control", "estimation", "physics", "rules", "sensors", "worlds")
# A process of older sources (started before an edit) may still be writing into their
# folder, and numba fails a call whose cache file it cannot write: such folders wait.
IDLE_BEFORE_REMOVAL = 600.0  # s


def user_cache_home() -> Path:
    """The per-user cache folder: ``$XDG_CACHE_HOME`` if set to an absolute path, else the
    platform's (``~/.cache``, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows).

    Raises ``RuntimeError`` if the home folder cannot be determined.
    """
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):  # the XDG specification ignores relative paths
        return Path(xdg)
    home = Path.home()
    if not home.is_absolute():  # no HOME and no password entry: expanduser gave "~"
        raise RuntimeError("cannot determine the home folder")
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    if sys.platform == "darwin":
        return home / "Library" / "Caches"
    return home / ".cache"


def python_tag() -> str:
    """The interpreter tag that numba's cache files carry too, e.g. ``"py311"``."""
    return f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"


def sources_digest(package: Path = PACKAGE) -> str:
    """SHA-256 (hex) over the sources numba compiles in ``package``: every module that
    mentions ``njit`` and every module of the :data:`MATHS_PACKAGES` present, found by
    globbing the package."""
    digest = hashlib.sha256()
    for path in sorted(Path(package).rglob("*.py")):
        relative = path.relative_to(package)
        source = path.read_bytes()
        if relative.parts[0] in MATHS_PACKAGES or b"njit" in source:
            digest.update(relative.as_posix().encode() + b"\0" + source + b"\0")
    return digest.hexdigest()


def install_tag(package: Path = PACKAGE) -> str:
    """A folder name for one installed copy of the package: the name of the folder holding
    it (``site-packages``, a checkout's name) and a digest of its path."""
    path = str(Path(package).resolve())
    return f"{Path(path).parent.name}-{hashlib.sha256(path.encode()).hexdigest()[:12]}"


def cache_folder(digest: str, cache_home: Path | None = None,
                 package: Path = PACKAGE) -> Path:
    """The folder of the kernels compiled from sources of ``digest`` (see
    :func:`sources_digest`) by this Python and numba; ``cache_home`` defaults to
    :func:`user_cache_home`."""
    home = user_cache_home() if cache_home is None else Path(cache_home)
    name = f"{python_tag()}-numba{numba.__version__}-{digest[:16]}"
    return home / "pyflyt_like" / "numba" / install_tag(package) / name


def remove_older_folders(folder: Path, idle: float = IDLE_BEFORE_REMOVAL) -> None:
    """Delete ``folder``'s siblings of the same Python (other digests or numba versions)
    that nothing wrote into for ``idle`` seconds; best-effort, as another process may be
    deleting them too."""
    try:
        siblings = [path for path in folder.parent.iterdir()
                    if path.name.startswith(f"{python_tag()}-numba") and path != folder]
    except OSError:
        return
    for sibling in siblings:
        try:  # numba writes into the subfolders (batch/, common/, ...)
            last_write = max(path.stat().st_mtime for path in (sibling, *sibling.iterdir()))
        except OSError:
            continue
        if time.time() - last_write > idle:
            shutil.rmtree(sibling, ignore_errors=True)


def _process_folder() -> Path:
    """A temporary folder for this process's kernels, deleted at exit: the fallback when
    the cache folder cannot be written."""
    if PackageCacheLocator.process_folder is None:
        folder = Path(tempfile.mkdtemp(prefix="pyflyt_like-numba-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        PackageCacheLocator.process_folder = folder
    return PackageCacheLocator.process_folder


class PackageCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """numba cache locator for the functions defined in this package's files.

    A function of ``<package>/<sub/path>/<module>.py`` is cached in ``folder/<sub/path>``;
    functions of other files are left to numba's next locators.
    """

    registered = False
    folder: Path | None = None  # None: no home folder, so only the fallback
    process_folder: Path | None = None  # the fallback, made on first need

    def __init__(self, py_func, py_file: str, cache_path: Path):
        self._py_file = py_file  # read by the mixin's source stamp
        self._lineno = py_func.__code__.co_firstlineno  # the mixin's disambiguator
        self._cache_path = str(cache_path)

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file: str) -> PackageCacheLocator | None:
        """This locator for ``py_func`` of ``py_file``, or ``None`` if numba's others decide:
        when ``NUMBA_CACHE_DIR`` is set, the file is not in the package or no folder can be
        written."""
        if numba.config.CACHE_DIR or not cls.registered or not os.path.exists(py_file):
            return None
        try:
            relative = Path(os.path.realpath(py_file)).relative_to(PACKAGE).parent
        except ValueError:
            return None
        if cls.folder is not None:
            locator = cls(py_func, py_file, cls.folder / relative)
            if locator.writable():
                return locator
        try:
            locator = cls(py_func, py_file, _process_folder() / relative)
        except OSError:  # no temporary folder either: numba's own locators decide
            return None
        return locator if locator.writable() else None

    def writable(self) -> bool:
        """Whether the cache folder exists or could be made, and takes a file."""
        try:
            self.ensure_cache_path()
        except OSError:
            return False
        return True


class CompileNotice(event.Listener):
    """Prints one line to stderr when numba starts compiling (a cache miss) a function of
    this package, the first time in the process: the first run takes from about 30 s (the
    engine alone) to a few minutes (a task's kernels with obstacles and sensors)."""

    def __init__(self):
        self.said = False

    def on_start(self, compile_event) -> None:
        dispatcher = compile_event.data["dispatcher"]
        if self.said or not _in_package(dispatcher.py_func.__code__.co_filename):
            return
        self.said = True
        path = dispatcher.stats.cache_path
        folder, process_folder = PackageCacheLocator.folder, PackageCacheLocator.process_folder
        if path is None:
            where = "not cached"
        elif process_folder is not None and Path(path).is_relative_to(process_folder):
            where = f"not kept: cannot write {folder or 'a home folder'}"
        elif folder is not None and Path(path).is_relative_to(folder):
            where = f"cached in {folder}"
        else:
            where = f"cached in {path}"
        print(f"pyflyt_like: compiling the batched engine's kernels, once (30 s to a few "
              f"minutes; {where})",
              file=sys.stderr, flush=True)

    def on_end(self, compile_event) -> None:
        pass


def _in_package(py_file: str) -> bool:
    return Path(os.path.realpath(py_file)).is_relative_to(PACKAGE)


def register_cache_locator() -> Path | None:
    """Put :class:`PackageCacheLocator` first in numba's locators (once), announce cache
    misses (:class:`CompileNotice`) and delete the caches of older sources. Must run before
    any kernel of the package is decorated. Returns the cache folder of the current sources
    (``None`` if the home folder is unknown).
    """
    if not PackageCacheLocator.registered:
        try:
            PackageCacheLocator.folder = cache_folder(sources_digest())
        except RuntimeError:  # no home folder: the kernels go to the temporary folder
            PackageCacheLocator.folder = None
        caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)
        event.register("numba:compile", CompileNotice())
        PackageCacheLocator.registered = True
        if PackageCacheLocator.folder is not None:
            remove_older_folders(PackageCacheLocator.folder)
    return PackageCacheLocator.folder
