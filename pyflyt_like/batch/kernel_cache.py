"""Drop numba's cached machine code when the source of any kernel module changed.

numba keys a cached function on its own file only. The batched pipeline (cached under
``pipeline.py``) inlines functions of five other files, and the env kernels call into
``rotations.py``, so an edit to one of those alone would leave the old machine code in use,
silently. At import, a digest of every kernel module's source is compared with the one
stored beside the caches; when it differs, the folder's cache files are deleted and numba
compiles again on first use. Caches outside the package are not checked: with
``NUMBA_CACHE_DIR`` set in a working copy, empty that folder after editing a kernel module
(a read-only install, cached in numba's per-user folder, is replaced as a whole on upgrade).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
KERNEL_FOLDERS = (PACKAGE / "batch", PACKAGE / "envs" / "multirotor_tasks")
STAMP = "kernel-sources.sha256"


def source_digest(folders) -> str:
    """SHA-256 over the sources of the modules in ``folders`` that define numba kernels."""
    digest = hashlib.sha256()
    for path in sorted(p for folder in folders for p in Path(folder).glob("*.py")):
        source = path.read_bytes()
        if b"@njit" in source:
            digest.update(path.name.encode() + b"\0" + source)
    return digest.hexdigest()


def drop_stale_caches(folders=KERNEL_FOLDERS) -> None:
    """Delete the ``*.nbi`` / ``*.nbc`` files in each folder's ``__pycache__`` unless its
    stamp matches the kernels' current sources; then write the stamp. Read-only folders
    are left alone."""
    digest = source_digest(folders)
    for folder in folders:
        cache = Path(folder) / "__pycache__"
        stamp = cache / STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        try:
            for pattern in ("*.nbi", "*.nbc"):
                for path in cache.glob(pattern):
                    path.unlink(missing_ok=True)
            cache.mkdir(exist_ok=True)
            partial = cache / f"{STAMP}.{os.getpid()}.tmp"
            partial.write_text(digest)
            partial.replace(stamp)
        except OSError:
            pass  # not writable: numba caches in its per-user folder instead
