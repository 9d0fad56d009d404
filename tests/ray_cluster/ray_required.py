"""The Ray tests' guard: skipped without the ``ray`` extra, except in CI's Ray environment
(``PYFLYT_LIKE_REQUIRE_RAY=1``), where a missing Ray is a failure, so they cannot silently
not run."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REASON = 'needs the ray extra: pip install "pyflyt_like[ray]"'


def import_ray(*modules: str) -> ModuleType:
    """``ray`` after importing each of ``modules`` (e.g. ``"ray.rllib"``), or a module skip."""
    required = os.environ.get("PYFLYT_LIKE_REQUIRE_RAY") == "1"
    for name in ("ray", *modules):
        if required:
            importlib.import_module(name)
        else:
            pytest.importorskip(name, reason=REASON)
    return importlib.import_module("ray")
