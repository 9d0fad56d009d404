"""The counts README.md states are the registry's: a task added or removed changes them."""

from __future__ import annotations

import re
from pathlib import Path

from pyflyt_like.envs import registry

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
         "eight": 8, "nine": 9, "ten": 10}


def stated(pattern: str) -> int:
    """The count README states where ``pattern`` (its group 1 the number) matches."""
    match = re.search(pattern, README, re.S)
    assert match, f"README.md no longer says {pattern!r}"
    number = match.group(1)
    return int(number) if number.isdigit() else WORDS[number.lower()]


def test_the_pybullet_task_count_is_the_registrys():
    assert stated(r"(\w+) Gymnasium tasks \(PyFlyt's task families") == len(
        registry.PYBULLET_TASKS)


def test_the_single_agent_task_count_is_the_registrys():
    single_agent = [entry for entry in registry.ENVS if entry.entry_point is not None]
    assert stated(r"registers all (\d+)\s+single-agent tasks") == len(single_agent)
