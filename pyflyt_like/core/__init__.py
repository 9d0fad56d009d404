"""The simulation core: the Aviary and what it hosts."""

from .aviary import Aviary

__all__ = ["Aviary"]
