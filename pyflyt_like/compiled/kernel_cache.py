"""Where numba keeps pyflyt_like's compiled kernels, and which of them it may load.

By default numba writes a function's cache (``*.nbi`` index, ``*.nbc`` machine code) into the
``__pycache__`` beside its source, inside the installed package. ``pip uninstall`` does not
know those files and leaves them; the folder left behind then imports as a namespace package
that shadows a later editable install. numba also keys a cached function on its own file
only (its modification time and size), while a kernel inlines functions of other files
(its pull requests 8396 and 9563 to track them were not merged), so an edit to a called file
alone would load stale machine code; and a reinstall of the same sources, with new times,
would compile everything again.

:func:`register_cache_locator` puts :class:`PackageCacheLocator` first in numba's list of
cache locators. It claims every function whose source file lies inside this package and
caches it in (:func:`module_folder`)::

    <user cache>/pyflyt_like/numba/<pyXY>-numba<version>/<sub/path>/<module>-<digest>/

``<digest>`` (:func:`module_digest`) covers the sources that the module's functions can
compile: the module and every module of the package it imports, transitively, read from
their import statements. So a second venv or a reinstall of the same sources loads the
same machine code (the locator gives numba the digest as the source's stamp, not the file's
time); an edit to a compiled source selects new, empty folders for exactly the modules that
import it, and an edit to a file that no kernel imports changes none. Stale machine code is
never loaded. Of the older digests of a module, the newest :data:`KEEP_DIGESTS` are kept
(two checkouts on different sources), and older ones are deleted once idle.

``NUMBA_CACHE_DIR``, if set, wins (numba's own locator then handles every function, and its
caches are keyed on each function's file only). If the user cache folder cannot be written,
the kernels are cached in a temporary folder for this process only (numba without any
writable locator raises at the decorator instead of compiling in memory). See docs/batch.md.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numba
from numba.core import caching, event

PACKAGE = Path(__file__).resolve().parent.parent
# A process of older sources (started before an edit) may still be writing into their
# folder, and numba fails a call whose cache file it cannot write: such folders wait.
IDLE_BEFORE_REMOVAL = 600.0  # s
#: Digests of one module kept whatever their age: the newest ones (checkouts of two
#: branches used in turn keep their kernels).
KEEP_DIGESTS = 3
DIGEST_LENGTH = 16  # hex characters of the digest in a folder name

# ``from X import (a, b)`` / ``from X import a`` / ``import X``: the modules named
_FROM_IMPORT = re.compile(r"^\s*from\s+([.\w]+)\s+import\s+(\([^)]*\)|[^\n#]*)", re.M)
_IMPORT = re.compile(r"^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)",
                     re.M)


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


def cache_root(cache_home: Path | None = None) -> Path:
    """The folder of every kernel compiled by this Python and numba; ``cache_home``
    defaults to :func:`user_cache_home`."""
    home = user_cache_home() if cache_home is None else Path(cache_home)
    return home / "pyflyt_like" / "numba" / f"{python_tag()}-numba{numba.__version__}"


class SourceGraph:
    """The package's modules and their imports of one another, read from the sources once.

    ``module_digest(path)`` is SHA-256 (hex) over the relative path and bytes of the module
    at ``path`` and of every package module it imports, transitively.
    """

    def __init__(self, package: Path = PACKAGE):
        self.package = Path(package)
        self._files: dict[Path, tuple[bytes, tuple[Path, ...]]] = {}
        self._digests: dict[Path, str] = {}

    def _module_file(self, dotted: str) -> Path | None:
        """The file of the package module ``dotted`` (``pyflyt_like.a.b``), or None."""
        parts = dotted.split(".")
        if parts[0] != self.package.name:
            return None
        base = self.package.joinpath(*parts[1:])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def _dotted(self, path: Path) -> str:
        relative = path.relative_to(self.package).with_suffix("")
        parts = [self.package.name, *relative.parts]
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def _imports(self, path: Path, source: str) -> tuple[Path, ...]:
        module = self._dotted(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        found: set[Path] = set()
        for origin, names in _FROM_IMPORT.findall(source):
            if origin.startswith("."):
                dots = len(origin) - len(origin.lstrip("."))
                anchor = package.rsplit(".", dots - 1)[0] if dots > 1 else package
                origin = anchor + ("." + origin[dots:] if origin[dots:] else "")
            named = [name.split(" as ")[0].strip()
                     for name in names.strip("() \n").replace("\n", " ").split(",")]
            submodules = [self._module_file(f"{origin}.{name}") for name in named if name]
            found.update(file for file in submodules if file is not None)
            if None in submodules or not submodules:  # a name defined in the module itself
                file = self._module_file(origin)
                if file is not None:
                    found.add(file)
        for group in _IMPORT.findall(source):
            for item in group.split(","):
                file = self._module_file(item.split(" as ")[0].strip())
                if file is not None:
                    found.add(file)
        found.discard(path)
        return tuple(sorted(found))

    def _read(self, path: Path) -> tuple[bytes, tuple[Path, ...]]:
        if path not in self._files:
            source = path.read_bytes()
            self._files[path] = (hashlib.sha256(source).digest(),
                                 self._imports(path, source.decode("utf-8", "replace")))
        return self._files[path]

    def closure(self, path: Path) -> list[Path]:
        """``path`` and every package module it imports, transitively, sorted."""
        seen, todo = set(), [Path(path)]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(self._read(current)[1])
        return sorted(seen)

    def module_digest(self, path: Path) -> str:
        path = Path(path)
        if path not in self._digests:
            digest = hashlib.sha256()
            for module in self.closure(path):
                digest.update(module.relative_to(self.package).as_posix().encode() + b"\0")
                digest.update(self._read(module)[0])
            self._digests[path] = digest.hexdigest()
        return self._digests[path]


_GRAPH = SourceGraph()


def module_digest(path: Path | str) -> str:
    """The digest of the sources a function of the package module at ``path`` can compile
    (:class:`SourceGraph`)."""
    return _GRAPH.module_digest(Path(os.path.realpath(path)))


def module_folder(path: Path | str, digest: str, root: Path) -> Path:
    """The cache folder of the functions of the package module at ``path`` compiled from
    sources of ``digest``, under ``root`` (:func:`cache_root`)."""
    relative = Path(os.path.realpath(path)).relative_to(PACKAGE)
    return root / relative.parent / f"{relative.stem}-{digest[:DIGEST_LENGTH]}"


def remove_older_folders(folder: Path, idle: float = IDLE_BEFORE_REMOVAL,
                         keep: int = KEEP_DIGESTS) -> None:
    """Delete the folders of ``folder``'s module with other digests, but for the ``keep``
    most recently written, that nothing wrote into for ``idle`` seconds; best-effort, as
    another process may be deleting them too."""
    stem = folder.name[:-DIGEST_LENGTH]  # "<module>-"
    try:
        siblings = [path for path in folder.parent.iterdir()
                    if path.name.startswith(stem) and len(path.name) == len(folder.name)
                    and path != folder and path.is_dir()]
    except OSError:
        return
    written = []
    for sibling in siblings:
        try:
            written.append((max(path.stat().st_mtime
                                for path in (sibling, *sibling.iterdir())), sibling))
        except (OSError, ValueError):
            continue
    written.sort(reverse=True)
    for last_write, sibling in written[keep - 1:]:  # the current folder is one of `keep`
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

    A function of ``<package>/<sub/path>/<module>.py`` is cached in
    :func:`module_folder`, stamped with the module's digest; functions of other files are
    left to numba's next locators.
    """

    registered = False
    root: Path | None = None  # None: no home folder, so only the fallback
    process_folder: Path | None = None  # the fallback, made on first need
    _cleaned: set[Path] = set()

    def __init__(self, py_func, py_file: str, cache_path: Path, digest: str):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno  # the mixin's disambiguator
        self._cache_path = str(cache_path)
        self._digest = digest

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        """The module's digest: the same sources installed again (new file times) load
        their kernels; other sources have folders of their own."""
        return self._digest

    @classmethod
    def from_function(cls, py_func, py_file: str) -> PackageCacheLocator | None:
        """This locator for ``py_func`` of ``py_file``, or ``None`` if numba's others decide:
        when ``NUMBA_CACHE_DIR`` is set, the file is not in the package or no folder can be
        written."""
        if numba.config.CACHE_DIR or not cls.registered or not os.path.exists(py_file):
            return None
        if not _in_package(py_file):
            return None
        digest = module_digest(py_file)
        if cls.root is not None:
            folder = module_folder(py_file, digest, cls.root)
            locator = cls(py_func, py_file, folder, digest)
            if locator.writable():
                if folder not in cls._cleaned:
                    cls._cleaned.add(folder)
                    remove_older_folders(folder)
                return locator
        try:
            folder = module_folder(py_file, digest, _process_folder())
            locator = cls(py_func, py_file, folder, digest)
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
    this package, the first time in the process: the first run of a kernel takes 5-25 s
    on two cores (``pyflyt-like compile`` does them all ahead of time)."""

    def __init__(self):
        self.said = False

    def on_start(self, compile_event) -> None:
        dispatcher = compile_event.data["dispatcher"]
        if self.said or not _in_package(dispatcher.py_func.__code__.co_filename):
            return
        self.said = True
        path = dispatcher.stats.cache_path
        root, process_folder = PackageCacheLocator.root, PackageCacheLocator.process_folder
        if path is None:
            where = "not cached"
        elif process_folder is not None and Path(path).is_relative_to(process_folder):
            where = f"not kept: cannot write {root or 'a home folder'}"
        elif root is not None and Path(path).is_relative_to(root):
            where = f"cached in {root}"
        else:
            where = f"cached in {path}"
        print(f"pyflyt_like: compiling kernels on first use, once (about 5-25 s each; "
              f"`pyflyt-like compile --all` does them ahead of time; {where})",
              file=sys.stderr, flush=True)

    def on_end(self, compile_event) -> None:
        pass


#: The notice of this process (``NOTICE.said = True`` silences it: ``pyflyt-like compile``).
NOTICE = CompileNotice()


def _in_package(py_file: str) -> bool:
    return Path(os.path.realpath(py_file)).is_relative_to(PACKAGE)


def register_cache_locator() -> Path | None:
    """Put :class:`PackageCacheLocator` first in numba's locators (once) and announce cache
    misses (:class:`CompileNotice`). Must run before any kernel of the package is
    decorated. Returns the cache root of this Python and numba (``None`` if the home
    folder is unknown).
    """
    if not PackageCacheLocator.registered:
        try:
            PackageCacheLocator.root = cache_root()
        except RuntimeError:  # no home folder: the kernels go to the temporary folder
            PackageCacheLocator.root = None
        caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)
        event.register("numba:compile", NOTICE)
        PackageCacheLocator.registered = True
    return PackageCacheLocator.root
