"""The guard of tests that need an optional extra: skipped, with the install line as the
reason, where the extra is absent; a failure instead where CI's stage for that extra runs
(``PYFLYT_LIKE_REQUIRE_EXTRAS`` lists the extras that must be present, comma-separated), so
an extra's tests can never silently not run."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def required_extras() -> set[str]:
    """The extras named in ``PYFLYT_LIKE_REQUIRE_EXTRAS``."""
    value = os.environ.get("PYFLYT_LIKE_REQUIRE_EXTRAS", "")
    return {name.strip() for name in value.split(",") if name.strip()}


def require_extra(extra: str, module: str) -> ModuleType:
    """Import ``module`` of the optional ``extra``, or skip the calling test module.

    Call it at module level: ``torch = require_extra("rl", "torch")``.
    """
    if extra in required_extras():
        return importlib.import_module(module)
    reason = f'needs the {extra} extra: pip install "pyflyt_like[{extra}]"'
    return pytest.importorskip(module, reason=reason)
