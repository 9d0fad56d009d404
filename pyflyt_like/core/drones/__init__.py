"""Built-in vehicles."""

from .fixedwing import Fixedwing
from .quadx import QuadX
from .rocket import Rocket

__all__ = ["Fixedwing", "QuadX", "Rocket"]
