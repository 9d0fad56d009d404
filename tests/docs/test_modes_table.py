"""docs/modes.md lists exactly the modes each vehicle offers."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pyflyt_like.core import Aviary

from .snippets import ROOT

MARK = "<!-- modes-table:"


def documented_modes() -> dict[str, tuple[int, ...]]:
    text = (ROOT / "docs" / "modes.md").read_text(encoding="utf-8")
    rows = text[text.index(MARK):].split("\n\n")[0].splitlines()[3:]
    table = {}
    for row in rows:
        vehicle, modes = (cell.strip() for cell in row.strip("|").split("|"))
        drone_type = re.match(r"`(\w+)`", vehicle).group(1)
        table[drone_type] = tuple(int(m.replace("−", "-")) for m in modes.split(","))
    return table


def test_the_table_names_every_vehicle_type():
    assert set(documented_modes()) == {"quadx", "multirotor", "fixedwing", "quadplane",
                                       "rocket"}


@pytest.mark.parametrize("drone_type, modes", sorted(documented_modes().items()))
def test_each_vehicle_offers_the_documented_modes(drone_type, modes):
    start = np.array([[0.0, 0.0, 10.0]])
    with Aviary(start, np.zeros((1, 3)), drone_type=drone_type, seed=0) as aviary:
        assert tuple(aviary.drones[0].modes) == modes
