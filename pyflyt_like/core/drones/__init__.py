"""Built-in vehicles."""

from .quadx import QuadX

__all__ = ["QuadX"]
