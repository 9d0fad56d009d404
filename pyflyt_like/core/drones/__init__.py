"""Built-in vehicles."""

from .fixedwing import Fixedwing
from .quadplane import QuadPlane
from .quadx import QuadX
from .rocket import Rocket

__all__ = ["Fixedwing", "QuadPlane", "QuadX", "Rocket"]
