"""Python code blocks of README.md and docs/: which are complete programs, and their text.

A fenced block opened with ```` ```python ```` is a complete program: it must run as written,
headless, from an empty working directory. A block whose first line is the comment
``# fragment`` (for example ``# fragment: inside a training loop``) shows part of a program
and is not run.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FRAGMENT_MARK = "# fragment"
# A fence may be indented (inside a list item); the block's lines are dedented to match.
_BLOCK = re.compile(r"^([ \t]*)```python[ \t]*\n(.*?)^\1```[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Snippet:
    path: Path
    line: int  # 1-based line of the opening fence
    code: str

    @property
    def is_fragment(self) -> bool:
        return self.code.lstrip().startswith(FRAGMENT_MARK)

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documentation_files() -> list[Path]:
    """README.md and every Markdown page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def snippets(path: Path) -> list[Snippet]:
    """Every ```python block of ``path``, in order."""
    text = path.read_text(encoding="utf-8")
    return [Snippet(path, text.count("\n", 0, match.start()) + 1,
                    textwrap.dedent(match.group(2)))
            for match in _BLOCK.finditer(text)]
