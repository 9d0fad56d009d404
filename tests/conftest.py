"""Shared fixtures: aviaries that are always closed after the test."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary


@pytest.fixture
def make_aviary():
    """Factory ``make_aviary(start_pos, start_orn=None, **kwargs)``; closes every aviary made.

    ``start_orn`` defaults to zeros and ``seed`` to 0, so tests are reproducible unless they
    ask otherwise.
    """
    made: list[Aviary] = []

    def factory(start_pos=((0.0, 0.0, 1.0),), start_orn=None, **kwargs) -> Aviary:
        start_pos = np.asarray(start_pos, dtype=float)
        if start_orn is None:
            start_orn = np.zeros_like(start_pos)
        kwargs.setdefault("seed", 0)
        aviary = Aviary(start_pos=start_pos, start_orn=np.asarray(start_orn, dtype=float),
                        **kwargs)
        made.append(aviary)
        return aviary

    yield factory
    for aviary in made:
        aviary.close()
