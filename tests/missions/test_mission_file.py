"""Mission files: validation with one-line errors naming the field."""

import math

import pytest
import yaml

from pyflyt_like.missions.default_mission import DEFAULT_MISSION_YAML
from pyflyt_like.missions.mission import Mission, MissionError


def base():
    return yaml.safe_load(DEFAULT_MISSION_YAML)


def test_default_mission_is_valid():
    mission = Mission.from_dict(base())
    assert [v.type for v in mission.vehicles] == ["quadx", "multirotor"]
    assert mission.vehicles[0].waypoints[2].hold == 1.0
    assert mission.vehicles[1].controller == "geometric"


@pytest.mark.parametrize("edit, match", [
    (lambda m: m["vehicles"][0].update(type="blimp"), r"vehicles\[0\]\.type"),
    (lambda m: m["vehicles"][1].update(controller="lqr"), r"vehicles\[1\]\.controller"),
    (lambda m: m["vehicles"][0]["waypoints"].__setitem__(0, [1.0, 2.0]),
     r"vehicles\[0\]\.waypoints\[0\]\.position needs 3 numbers"),
    (lambda m: m["vehicles"][0]["waypoints"].__setitem__(1, [1.0, math.nan, 1.0]),
     r"waypoints\[1\]\.position\[1\] must be a finite number"),
    (lambda m: m["vehicles"][0].update(speed=-1.0), r"vehicles\[0\]\.speed must be >= 0.01"),
    (lambda m: m["vehicles"][0]["waypoints"].__setitem__(2, {"position": [0, 1, 1],
                                                              "speed": 0}),
     r"waypoints\[2\]\.speed must be >= 0.01"),
    (lambda m: m["vehicles"][0]["waypoints"].__setitem__(2, {"position": [0, 1, 1],
                                                              "hold": -2}),
     r"waypoints\[2\]\.hold must be >= 0"),
    (lambda m: m.update(duration_limit=0), "duration_limit must be > 0"),
    (lambda m: m.update(wind={"type": "hurricane"}), "wind must be a mapping with type"),
    (lambda m: m.update(vehicles=[]), "vehicles must be a non-empty list"),
    (lambda m: m["vehicles"][0].update(colour="red"), r"unknown fields \['colour'\]"),
    (lambda m: m["vehicles"][1].update(name="quadx"), "vehicle names must be unique"),
])
def test_bad_missions_raise_one_line_errors(edit, match):
    data = base()
    edit(data)
    with pytest.raises(MissionError, match=match) as error:
        Mission.from_dict(data, source="m.yaml")
    assert "\n" not in str(error.value)
    assert str(error.value).startswith("m.yaml: ")


def test_missing_file_and_yaml_syntax_error(tmp_path):
    with pytest.raises(MissionError, match="not found"):
        Mission.from_yaml(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("vehicles: [\n  - {type: quadx,\n")
    with pytest.raises(MissionError, match=r"YAML syntax error at line \d+"):
        Mission.from_yaml(broken)
