"""Built-in vehicles."""

from .fixedwing import Fixedwing
from .quadx import QuadX

__all__ = ["Fixedwing", "QuadX"]
