"""The API reference pages: one per public module, one mkdocstrings entry per public name.

The names are each module's ``__all__``, so a name added there is in the reference without
editing any page. Each entry points at the object's defining module.

The pages are made without importing what the documented modules import, so the site builds
with only the docs extra (``pyflyt_like.training`` needs torch, ``pyflyt_like.integrations.sb3``
stable-baselines3): a module's docstring, ``__all__`` and the place each name is bound are read
from its source, following ``from ... import`` to the ``class`` or ``def``. Only a module that
exports names lazily (a module-level ``__getattr__``, PEP 562) is imported, as such a module
imports nothing optional until a name is used: its ``__all__`` may be computed, and its
lazy-export table, a module-level dict from each such name to the module that defines it, says
where to read on.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import inspect
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PUBLIC_MODULES = (
    "pyflyt_like.control",
    "pyflyt_like.core",
    "pyflyt_like.core.abstractions",
    "pyflyt_like.core.drones",
    "pyflyt_like.core.wind",
    "pyflyt_like.batch",
    "pyflyt_like.sensors",
    "pyflyt_like.estimation",
    "pyflyt_like.worlds",
    "pyflyt_like.envs",
    "pyflyt_like.envs.registry",
    "pyflyt_like.missions",
    "pyflyt_like.training",
    "pyflyt_like.integrations.rllib",
    "pyflyt_like.integrations.sb3",
)

# Statements whose bodies still run at module level, so a name bound in them is a global.
_BLOCKS = (ast.If, ast.Try)


@dataclass(frozen=True)
class ApiPage:
    module: str
    markdown: str
    entries: tuple[str, ...]  # the dotted paths documented

    @property
    def slug(self) -> str:
        return self.module.removeprefix("pyflyt_like.").replace(".", "-")


@dataclass(frozen=True)
class ModuleSource:
    """A module as parsed from its file, not imported."""

    name: str
    tree: ast.Module
    is_package: bool

    @property
    def package(self) -> str:
        """The package its relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    @property
    def docstring(self) -> str:
        return ast.get_docstring(self.tree) or ""


@cache
def module_source(module_name: str) -> ModuleSource:
    """Parse ``module_name``'s source file, found without importing it or its packages.

    Raises:
        ValueError: no module of that name, or it has no Python source.
    """
    top, *rest = module_name.split(".")
    spec = importlib.util.find_spec(top)  # imports nothing for a top-level name
    for depth in range(1, len(rest) + 1):
        if spec is None or spec.submodule_search_locations is None:
            break
        spec = importlib.machinery.PathFinder.find_spec(
            ".".join([top, *rest[:depth]]), spec.submodule_search_locations)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ValueError(f"no Python source for the module {module_name!r}")
    path = Path(spec.origin)
    return ModuleSource(module_name, ast.parse(path.read_text(encoding="utf-8"), str(path)),
                        spec.submodule_search_locations is not None)


def _statements(body: list[ast.stmt]):
    """The module-level statements of ``body``, including those inside ``if`` and ``try``."""
    for statement in body:
        yield statement
        if isinstance(statement, _BLOCKS):
            for field in ("body", "orelse", "finalbody"):
                yield from _statements(getattr(statement, field, []))
            for handler in getattr(statement, "handlers", []):
                yield from _statements(handler.body)


def _binding(source: ModuleSource, name: str) -> ast.stmt | None:
    """The last module-level statement of ``source`` that binds ``name``, or None."""
    found = None
    for statement in _statements(source.tree.body):
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            bound = [statement.name]
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            bound = [alias.asname or alias.name.partition(".")[0] for alias in statement.names]
        elif isinstance(statement, ast.Assign):
            bound = [node.id for target in statement.targets for node in ast.walk(target)
                     if isinstance(node, ast.Name)]
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            bound = [statement.target.id] if isinstance(statement.target, ast.Name) else []
        else:
            bound = []
        if name in bound:
            found = statement
    return found


def _is_module(module_name: str) -> bool:
    try:
        module_source(module_name)
    except ValueError:
        return False
    return True


def defined_at(module_name: str, name: str) -> str | None:
    """Dotted path of the ``class`` or ``def`` that ``module_name.name`` is, read from source;
    None when the name is bound to anything else (a constant, a module).

    Raises:
        LookupError: ``module_name`` does not bind ``name``.
    """
    source = module_source(module_name)
    statement = _binding(source, name)
    if statement is None:
        raise LookupError(f"{module_name} does not bind {name!r}")
    if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"{module_name}.{name}"
    if isinstance(statement, ast.ImportFrom):
        alias = next(a for a in statement.names if (a.asname or a.name) == name)
        origin = statement.module or ""
        if statement.level:
            origin = importlib.util.resolve_name("." * statement.level + origin, source.package)
        if _binding(module_source(origin), alias.name) is None \
                and _is_module(f"{origin}.{alias.name}"):
            return None  # ``from package import submodule``
        return defined_at(origin, alias.name)
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name) \
            and _binding(source, statement.value.id) is not None:
        return defined_at(module_name, statement.value.id)  # another name for the same object
    return None


def public_names(module_name: str) -> list[str]:
    """``module_name.__all__``: from the source where it is a literal list or tuple of
    strings, else from the imported module (a lazily exporting one computes it)."""
    for statement in module_source(module_name).tree.body:
        if isinstance(statement, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__all__"
                for target in statement.targets):
            try:
                names = ast.literal_eval(statement.value)
            except ValueError:
                break
            return list(names)
    return list(importlib.import_module(module_name).__all__)


def lazy_export_origin(module_name: str, name: str) -> tuple[str, str]:
    """The module, and the name in it, that a lazily exporting ``module_name`` loads ``name``
    from, read from its lazy-export table: a module-level dict mapping ``name`` to
    ``"module"`` or ``"module:attribute"``, the module absolute or relative to the package.

    Raises:
        LookupError: no such table names ``name``.
    """
    module = importlib.import_module(module_name)
    package = module.__name__ if hasattr(module, "__path__") else module.__package__
    for table in vars(module).values():
        if isinstance(table, dict) and isinstance(table.get(name), str):
            target, _, attribute = table[name].partition(":")
            if not target.startswith((".", f"{module_name.partition('.')[0]}.")):
                target = f".{target}"
            return importlib.util.resolve_name(target, package), attribute or name
    raise LookupError(f"{module_name}.{name} is neither bound in its source nor in a "
                      "lazy-export table")


def definition_path(module_name: str, name: str) -> str:
    """Dotted path where ``module_name.name`` is defined (constants: where exported)."""
    source = module_source(module_name)
    if _binding(source, name) is None and _binding(source, "__getattr__") is not None:
        path = defined_at(*lazy_export_origin(module_name, name))
    else:
        path = defined_at(module_name, name)
    return path or f"{module_name}.{name}"


def api_page(module_name: str) -> ApiPage:
    names = public_names(module_name)
    entries = tuple(definition_path(module_name, name) for name in names)
    summary = inspect.cleandoc(module_source(module_name).docstring).split("\n\n")[0]
    lines = [f"# {module_name}", "", summary, "",
             "| name | defined in |", "|---|---|",
             *(f"| `{name}` | `{path.rsplit('.', 1)[0]}` |"
               for name, path in zip(names, entries)), ""]
    for name, path in zip(names, entries):
        lines += [f"::: {path}", "    options:", f"      heading: {name}",
                  "      show_root_full_path: false", ""]
    return ApiPage(module_name, "\n".join(lines), entries)


def all_api_pages() -> list[ApiPage]:
    return [api_page(name) for name in PUBLIC_MODULES]
