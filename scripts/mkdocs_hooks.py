"""mkdocs hooks (``hooks:`` in mkdocs.yml): add the generated pages to the site.

The task pages (``scripts/env_pages.py``), the API reference (``scripts/api_pages.py``) and
the gallery of example missions (``scripts/gallery.py``) exist only in the build (nothing is
written into docs/), so they always match the code. Their nav entries are in mkdocs.yml.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).parent))
from api_pages import all_api_pages  # noqa: E402
from env_pages import all_pages  # noqa: E402
from gallery import all_entries, gallery_markdown  # noqa: E402

TASK_FOLDER = "tasks"
API_FOLDER = "api"


def on_files(files: Files, config) -> Files:
    for page in all_pages():
        files.append(File.generated(config, f"{TASK_FOLDER}/{page.slug}.md",
                                    content=page.markdown))
        files.append(File.generated(config, f"{TASK_FOLDER}/{page.slug}.png",
                                    content=page.image_png))
    entries = all_entries()
    files.append(File.generated(config, "gallery/index.md", content=gallery_markdown(entries)))
    for entry in entries:
        for name, data in entry.images.items():
            files.append(File.generated(config, f"gallery/{name}", content=data))
    for page in all_api_pages():
        files.append(File.generated(config, f"{API_FOLDER}/{page.slug}.md",
                                    content=page.markdown))
    return files
