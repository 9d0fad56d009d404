"""The control laws of :mod:`pyflyt_like.control` that both batched families compile: the PID
channel (:func:`pyflyt_like.control.pid.pid_channel`, the PyBullet ``PID``'s law), one
compiled object for the multirotor's body-rate loop and the fixed-wing's."""

from __future__ import annotations

from pyflyt_like.control import pid

from .jit import compile_shared

pid_channel = compile_shared(pid.pid_channel, inline=True)
