"""Built-in vehicles."""

from .fixedwing import Fixedwing
from .multirotor import Multirotor
from .quadplane import QuadPlane
from .quadx import QuadX
from .rocket import Rocket

__all__ = ["Fixedwing", "Multirotor", "QuadPlane", "QuadX", "Rocket"]
