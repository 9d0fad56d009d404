"""Every complete Python block in README.md and docs/ runs as written (headless)."""

from __future__ import annotations

import matplotlib
import pytest

from .snippets import FRAGMENT_MARK, ROOT, documentation_files, snippets

matplotlib.use("Agg")  # a snippet that plots must not need a display

ALL = [s for path in documentation_files() for s in snippets(path)]
COMPLETE = [s for s in ALL if not s.is_fragment]

# Complete snippets run by `pytest -m slow` only (CI's slow stage): each is the only user in
# the default suite of a kernel whose cold compile takes one to three minutes on two cores.
# Keyed on the page and on what the snippet does, not on its line (which moves with edits).
SLOW = {
    # a kernel with the user's stages inlined; user stages' fast tests and slow flights:
    # tests/batch/test_user_stages.py
    ("docs/batch.md", "user_stages="),
    # 1024 envs run the threaded task kernel; the same envs on the calling thread:
    # tests/envs/multirotor_tasks
    ("docs/vector_tasks.md", "num_envs=1024"),
}


def is_slow(snippet) -> bool:
    page = snippet.path.relative_to(ROOT).as_posix()
    return any(page == slow_page and text in snippet.code for slow_page, text in SLOW)


def test_the_documentation_has_complete_snippets():
    assert len(COMPLETE) >= 20


def test_every_slow_key_names_a_complete_snippet():
    for page, text in SLOW:
        assert any(s.path.relative_to(ROOT).as_posix() == page and text in s.code
                   for s in COMPLETE), (page, text)


@pytest.mark.parametrize("snippet", [
    pytest.param(s, id=s.name, marks=[pytest.mark.slow] if is_slow(s) else [])
    for s in COMPLETE])
def test_snippet_runs(snippet, tmp_path, monkeypatch):
    if "import ray" in snippet.code:  # docs/scaling.md: CI runs these in its Ray environment
        pytest.importorskip("ray.rllib",
                            reason='needs the ray extra: pip install "pyflyt_like[ray]"')
    # Run as from a fresh clone's root (examples/ at hand), writing into a scratch folder.
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISPLAY", raising=False)
    namespace = {"__name__": "__main__"}
    code = compile(snippet.code, snippet.name, "exec")
    try:
        exec(code, namespace)
    finally:
        for value in list(namespace.values()):  # close what the snippet left open
            close = getattr(value, "close", None)
            if callable(close) and type(value).__module__.startswith("pyflyt_like"):
                close()


@pytest.mark.parametrize("snippet", [s for s in ALL if s.is_fragment],
                         ids=[s.name for s in ALL if s.is_fragment])
def test_fragments_say_what_they_are_part_of(snippet):
    first_line = snippet.code.lstrip().splitlines()[0]
    assert first_line.startswith(FRAGMENT_MARK + ":") and len(first_line) > len(FRAGMENT_MARK) + 3
