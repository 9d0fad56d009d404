"""PyFlyt's path of the PID controller, which lives in :mod:`pyflyt_like.control.pid`."""

from pyflyt_like.control.pid import MAX_ERROR, PID

__all__ = ["MAX_ERROR", "PID"]
