"""Every path of the repository that README.md and the docs name (in backticks) exists: a
moved or renamed file cannot leave a page pointing at nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md"])
#: A repository path in backticks, optionally followed by ``::name``; env ids
#: (``pyflyt_like/QuadX-Hover-v0``) look alike and are not paths.
NAMED_PATH = re.compile(r"`((?:pyflyt_like|tests|scripts|examples|benchmarks)/[\w./<>*-]*)"
                        r"(?:::[\w.]+)?`")
ENV_ID = re.compile(r"-v\d+$")


def named_paths(page: Path) -> list[str]:
    """The repository paths ``page`` names, less placeholders (``<name>``) and globs."""
    found = {match.group(1).rstrip("/.") for match in NAMED_PATH.finditer(page.read_text())}
    return sorted(path for path in found
                  if "<" not in path and "*" not in path and not ENV_ID.search(path))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_path_a_page_names_exists(page):
    missing = [path for path in named_paths(page) if not (ROOT / path).exists()]
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


def test_the_pages_name_paths_at_all():
    assert sum(len(named_paths(page)) for page in PAGES) > 100
