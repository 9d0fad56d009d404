"""Built-in wind fields, selectable by name through ``Aviary(wind_type=...)``."""

from __future__ import annotations

from ..abstractions.base_wind_field import WindFieldClass

# Name -> WindFieldClass subclass. Built-in models register here.
WIND_FIELDS: dict[str, type[WindFieldClass]] = {}

__all__ = ["WIND_FIELDS"]
