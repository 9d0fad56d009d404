"""The guard against stale numba caches: cache files go when a kernel module changes."""

from __future__ import annotations

from pyflyt_like.batch.kernel_cache import STAMP, drop_stale_caches, source_digest

KERNEL = "from numba import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x\n"


def make_folder(tmp_path, name: str):
    folder = tmp_path / name
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "plain.py").write_text("VALUE = 1\n")
    return folder


def cache_files(folder) -> list[str]:
    return sorted(p.name for p in (folder / "__pycache__").iterdir() if p.name != STAMP)


def test_caches_survive_until_a_kernel_module_of_either_folder_changes(tmp_path):
    first, second = make_folder(tmp_path, "a"), make_folder(tmp_path, "b")
    folders = (first, second)
    (first / "__pycache__" / "old.nbi").write_text("")
    drop_stale_caches(folders)  # no stamp yet: whatever is there may be stale
    assert cache_files(first) == []
    for folder in folders:
        assert (folder / "__pycache__" / STAMP).read_text() == source_digest(folders)

    for folder in folders:
        (folder / "__pycache__" / "f-4.py311.nbi").write_text("")
        (folder / "__pycache__" / "f-4.py311.1.nbc").write_text("")
        (folder / "__pycache__" / "kernel.cpython-311.pyc").write_text("")
    (first / "plain.py").write_text("VALUE = 2\n")  # not a kernel module: caches stay
    drop_stale_caches(folders)
    assert cache_files(first) == cache_files(second) == [
        "f-4.py311.1.nbc", "f-4.py311.nbi", "kernel.cpython-311.pyc"]

    (second / "kernel.py").write_text(KERNEL.replace("return x", "return 2 * x"))
    drop_stale_caches(folders)  # a called module changed: both folders' caches go
    assert cache_files(first) == cache_files(second) == ["kernel.cpython-311.pyc"]


def test_an_unwritable_cache_folder_is_left_alone(tmp_path):
    folder = tmp_path / "installed"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "__pycache__").write_text("a file where the folder would be")  # writes fail
    drop_stale_caches((folder,))
    assert (folder / "__pycache__").read_text() == "a file where the folder would be"
