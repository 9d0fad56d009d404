"""pyflyt_like: a UAV simulation framework on PyBullet with a PyFlyt-compatible API."""

__version__ = "0.1.0"
