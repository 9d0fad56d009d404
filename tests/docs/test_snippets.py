"""Every complete Python block in README.md and docs/ runs as written (headless)."""

from __future__ import annotations

import matplotlib
import pytest

from .snippets import FRAGMENT_MARK, ROOT, documentation_files, snippets

matplotlib.use("Agg")  # a snippet that plots must not need a display

ALL = [s for path in documentation_files() for s in snippets(path)]
COMPLETE = [s for s in ALL if not s.is_fragment]


def test_the_documentation_has_complete_snippets():
    assert len(COMPLETE) >= 20


@pytest.mark.parametrize("snippet", COMPLETE, ids=[s.name for s in COMPLETE])
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
