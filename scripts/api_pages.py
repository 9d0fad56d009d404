"""The API reference pages: one per public module, one mkdocstrings entry per public name.

The public modules are DESIGN.md's public import paths; the names are each module's
``__all__``, so a name added there is in the reference without editing any page. Each
entry points at the object's defining module (task classes are exported lazily, where
static analysis cannot follow them).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass

PUBLIC_MODULES = (
    "pyflyt_like.core",
    "pyflyt_like.core.abstractions",
    "pyflyt_like.core.drones",
    "pyflyt_like.core.wind",
    "pyflyt_like.batch",
    "pyflyt_like.envs",
    "pyflyt_like.missions",
    "pyflyt_like.training",
    "pyflyt_like.integrations.rllib",
)


@dataclass(frozen=True)
class ApiPage:
    module: str
    markdown: str
    entries: tuple[str, ...]  # the dotted paths documented

    @property
    def slug(self) -> str:
        return self.module.removeprefix("pyflyt_like.").replace(".", "-")


def definition_path(module_name: str, name: str) -> str:
    """Dotted path where ``module_name.name`` is defined (constants: where exported)."""
    value = getattr(importlib.import_module(module_name), name)
    if inspect.isclass(value) or inspect.isfunction(value):
        return f"{value.__module__}.{value.__qualname__}"
    return f"{module_name}.{name}"


def api_page(module_name: str) -> ApiPage:
    module = importlib.import_module(module_name)
    entries = tuple(definition_path(module_name, name) for name in module.__all__)
    summary = inspect.cleandoc(module.__doc__ or "").split("\n\n")[0]
    lines = [f"# {module_name}", "", summary, "",
             "| name | defined in |", "|---|---|",
             *(f"| `{name}` | `{path.rsplit('.', 1)[0]}` |"
               for name, path in zip(module.__all__, entries)), ""]
    for name, path in zip(module.__all__, entries):
        lines += [f"::: {path}", "    options:", f"      heading: {name}",
                  "      show_root_full_path: false", ""]
    return ApiPage(module_name, "\n".join(lines), entries)


def all_api_pages() -> list[ApiPage]:
    return [api_page(name) for name in PUBLIC_MODULES]
