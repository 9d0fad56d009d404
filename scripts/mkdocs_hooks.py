"""mkdocs hooks (``hooks:`` in mkdocs.yml): add the generated task pages to the site.

The pages exist only in the build (nothing is written into docs/), so they always match the
installed tasks. Their nav entries are in mkdocs.yml under "Gymnasium tasks".
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).parent))
from env_pages import all_pages  # noqa: E402

TASK_FOLDER = "tasks"


def on_files(files: Files, config) -> Files:
    for page in all_pages():
        files.append(File.generated(config, f"{TASK_FOLDER}/{page.slug}.md",
                                    content=page.markdown))
        files.append(File.generated(config, f"{TASK_FOLDER}/{page.slug}.png",
                                    content=page.image_png))
    return files
