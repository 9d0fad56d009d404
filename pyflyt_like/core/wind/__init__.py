"""Built-in wind fields, selectable by name through ``Aviary(wind_type=...)``.

See docs/wind.md. Each entry of :data:`WIND_FIELDS` is a :class:`WindFieldClass` subclass,
built by the aviary as ``WIND_FIELDS[name](np_random, **wind_options)``.
"""

from __future__ import annotations

from ..abstractions.base_wind_field import WindFieldClass
from .constant import ConstantWind
from .dryden import DrydenWind
from .gust import DiscreteGustWind
from .shear import ShearWind

# Name -> WindFieldClass subclass. Built-in models register here.
WIND_FIELDS: dict[str, type[WindFieldClass]] = {
    cls.wind_name: cls for cls in (ConstantWind, DiscreteGustWind, ShearWind, DrydenWind)
}

__all__ = ["WIND_FIELDS", "ConstantWind", "DiscreteGustWind", "DrydenWind", "ShearWind"]
