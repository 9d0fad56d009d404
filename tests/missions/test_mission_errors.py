"""Mission files that PyYAML or a loose schema would accept: each is one MissionError line.

Every case is validate-only (no flight): the messages name the field as written in the file
and what is allowed.
"""

import math
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.missions import mission as mission_module
from pyflyt_like.missions import mission_yaml
from pyflyt_like.missions.mission import Mission, MissionError
from pyflyt_like.missions.trajectory import MinimumSnapTrajectory

ONE_VEHICLE = """
vehicles:
  - type: quadx
    waypoints: [[1, 0, 1]]
"""


def vehicle(extra="", waypoint="[1, 0, 1]", top=""):
    """A one-vehicle mission with ``extra`` fields on the vehicle and one ``waypoint``."""
    return f"{top}vehicles:\n  - {{type: quadx, waypoints: [{waypoint}]{extra}}}\n"


def load_text(tmp_path, text, name="m.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return Mission.from_yaml(path)


def assert_one_line_error(error, path):
    message = str(error.value)
    assert isinstance(error.value, ValueError)
    assert "\n" not in message and len(message) < 400
    assert message.startswith(f"{path}") or message.startswith(f"mission file {path}")


# ------------------------------------------------------------------ reading the file
def test_bytes_that_are_not_utf8_name_the_file_and_the_offset(tmp_path):
    utf16 = tmp_path / "utf16.yaml"
    utf16.write_bytes("vehicles: []".encode("utf-16"))  # starts with the BOM ff fe
    with pytest.raises(MissionError, match=r"utf16\.yaml is not UTF-8 text: byte 0xff at "
                                           r"offset 0 \(line 1\)") as error:
        Mission.from_yaml(utf16)
    assert_one_line_error(error, utf16)
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("name: x\n# caf\u00e9\nvehicles: []\n".encode("latin-1"))
    with pytest.raises(MissionError, match=r"byte 0xe9 at offset 13 \(line 2\)"):
        Mission.from_yaml(latin1)


def test_control_characters_and_a_utf8_bom(tmp_path):
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"name: a\nvehicles: \x00\n")
    with pytest.raises(MissionError, match=r"character #x0000 at line 2 is not allowed"):
        Mission.from_yaml(nul)
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbf" + ONE_VEHICLE.encode())
    assert Mission.from_yaml(bom).vehicles[0].type == "quadx"


def test_a_directory_is_not_called_missing(tmp_path):
    with pytest.raises(MissionError, match=r"is a directory, not a file") as error:
        Mission.from_yaml(tmp_path)
    assert_one_line_error(error, tmp_path)
    with pytest.raises(MissionError, match="not found"):
        Mission.from_yaml(tmp_path / "nope.yaml")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_is_not_a_regular_file():
    with pytest.raises(MissionError, match="is not a regular file"):
        Mission.from_yaml("/dev/null")


def test_an_unreadable_file_says_permission_denied(tmp_path, monkeypatch):
    path = tmp_path / "locked.yaml"
    path.write_text(ONE_VEHICLE)
    real_open = Path.open

    def refuse(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(MissionError, match=r"locked\.yaml cannot be read: permission denied"):
        Mission.from_yaml(path)


# Sysctls of mode 0200 (write-only): the kernel refuses to open them for reading to every
# user, root included, whose capabilities override the mode of any file on a disk.
WRITE_ONLY_FILES = [Path("/proc/sys/vm/compact_memory"), Path("/proc/sys/net/ipv4/route/flush"),
                    Path("/proc/sys/net/ipv6/route/flush")]


def test_an_unreadable_file_on_disk(tmp_path):
    """A real open() that the OS refuses, not a mocked one: a write-only sysctl (Linux, any
    user), and a file of mode 0 where modes bind (not as root)."""
    paths = [path for path in WRITE_ONLY_FILES if path.is_file()][:1]
    locked = tmp_path / "locked.yaml"
    locked.write_text(ONE_VEHICLE)
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        paths.append(locked)
    if not paths:
        pytest.skip("no write-only sysctl here, and this user reads files whatever their mode")
    locked.chmod(0)
    try:
        for path in paths:
            with pytest.raises(MissionError, match=rf"^mission file {re.escape(str(path))} "
                                                   r"cannot be read: permission denied$"
                               ) as error:
                Mission.from_yaml(path)
            assert_one_line_error(error, path)
    finally:
        locked.chmod(0o644)


def test_a_huge_file_is_refused_before_parsing(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"#" * (mission_yaml.MAX_FILE_BYTES + 1))
    with pytest.raises(MissionError, match=r"larger than 1048576 bytes"):
        Mission.from_yaml(path)


@pytest.mark.parametrize("text", [
    "vehicles: " + "[" * 1000 + "]" * 1000 + "\n",  # flow: would hit RecursionError
    "vehicles:\n" + "".join("  " * (i + 1) + "-\n" for i in range(1000)),  # block
    vehicle(waypoint="{position: " + "[" * 30 + "1" + "]" * 30 + "}"),
])
def test_deep_nesting_is_one_line_not_a_recursion_error(tmp_path, text):
    with pytest.raises(MissionError, match=r"nested deeper than 20 levels") as error:
        load_text(tmp_path, text)
    assert_one_line_error(error, tmp_path / "m.yaml")


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    """A 'billion laughs' file (nine levels of ten aliases: 10^9 nodes) is refused before
    anything walks it; a shared block (<<: *defaults) still reads."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]")
    text = "\n".join(lines) + "\nvehicles: *a9\n"
    with pytest.raises(MissionError, match=r"aliases \(\*name\) repeat [0-9.]+e\+\d+ nodes, "
                                           r"more than the 10000 allowed") as error:
        load_text(tmp_path, text)
    assert_one_line_error(error, tmp_path / "m.yaml")
    data = mission_yaml.load_mission_text("base: &b {speed: 2.0}\nleg: {<<: *b, height: 1.0}\n",
                                          "<text>")
    assert data["leg"] == {"speed": 2.0, "height": 1.0}


def test_nested_lists_where_a_number_belongs(tmp_path):
    with pytest.raises(MissionError, match=r"waypoints\[0\]\.position needs 3 numbers \[x, y, "
                                           r"z\], got 1"):
        load_text(tmp_path, vehicle(waypoint="{position: [[[[[[1]]]]]]}"))
    deep = [1.0]
    for _ in range(100_000):  # built in code: deeper than repr() could print
        deep = [deep]
    data = {"vehicles": [{"type": "quadx", "waypoints": [[deep, 0, 1]]}]}
    with pytest.raises(MissionError, match=r"position\[0\] must be a finite number, got "
                                           r"\[\[\[\.\.\.\]\]\]"):
        Mission.from_dict(data, source="deep")


@pytest.mark.parametrize("text, key, line", [
    ("name: a\nname: b\nvehicles: []\n", "name", 2),
    ("vehicles:\n  - type: quadx\n    speed: 1\n    speed: 2\n    waypoints: [[1, 0, 1]]\n",
     "speed", 4),
    (vehicle(waypoint="{position: [1, 0, 1], hold: 1, hold: 2}"), "hold", 2),
    ("wind:\n  type: constant\n  options: {velocity: [1, 0, 0], velocity: [2, 0, 0]}\n"
     + ONE_VEHICLE, "velocity", 3),
])
def test_duplicate_keys_name_the_key_and_its_line(tmp_path, text, key, line):
    with pytest.raises(MissionError, match=rf"duplicate key '{key}' at line {line}, column \d+ "
                                           r"\(first at line \d+, column \d+\)") as error:
        load_text(tmp_path, text)
    assert_one_line_error(error, tmp_path / "m.yaml")


def test_merge_keys_may_still_override(tmp_path):
    mission = load_text(tmp_path, """
vehicles:
  - &first {name: a, type: quadx, speed: 0.5, waypoints: [[1, 0, 1]]}
  - {<<: *first, name: b}
""")
    assert [v.name for v in mission.vehicles] == ["a", "b"]
    assert mission.vehicles[1].speed == 0.5


def test_exponents_are_numbers_as_in_yaml_1_2(tmp_path):
    mission = load_text(tmp_path, vehicle(waypoint="{position: [1e0, 0, 1], hold: 2.5E-1}"))
    assert mission.vehicles[0].waypoints[0].hold == 0.25
    assert mission.vehicles[0].waypoints[0].position == (1.0, 0.0, 1.0)


@pytest.mark.parametrize("text, match", [
    ("name: 2024-13-01\n" + ONE_VEHICLE, r"cannot read the value '2024-13-01' at line 1"),
    (vehicle(waypoint="[" + "9" * 5000 + ", 0, 1]"), r"cannot read the value '9+\.\.\. at line 2"),
    ("vehicles: !!python/object:os.system ls\n", "YAML syntax error at line 1"),
])
def test_values_pyyaml_cannot_build(tmp_path, text, match):
    with pytest.raises(MissionError, match=match):
        load_text(tmp_path, text)


def test_the_default_mission_text_is_read_as_strictly():
    with pytest.raises(MissionError, match=r"<text>: duplicate key 'name'"):
        Mission.from_yaml_text("name: a\nname: b\n")


# ------------------------------------------------------------------ the schema
BAD_FIELDS = [
    # 3: finite but absurd numbers
    (vehicle(waypoint="{position: [1, 0, 1], hold: 1e308}"),
     r"vehicles\[0\]\.waypoints\[0\]\.hold must be >= 0 and <= 3600 s, got 1e\+308"),
    (vehicle(waypoint="{position: [1, 0, 1], hold: 3601}"), r"hold must be >= 0 and <= 3600 s"),
    (vehicle(", speed: 1e308"), r"vehicles\[0\]\.speed must be >= 0.01 and <= 100 m/s"),
    (vehicle(", speed: 1.0e-300"), r"vehicles\[0\]\.speed must be >= 0.01"),
    (vehicle(waypoint="{position: [1, 0, 1], speed: 101}"), r"waypoints\[0\]\.speed must be"),
    (vehicle(waypoint="[1e308, 0, 1]"),
     r"waypoints\[0\]\.position\[0\] must be >= -100000 and <= 100000 m, got 1e\+308"),
    (vehicle(waypoint="[1, 0, -1.0e+6]"), r"waypoints\[0\]\.position\[2\] must be >= -100000"),
    (vehicle(waypoint="[" + "9" * 400 + ", 0, 1]"), r"position\[0\] must be >= -100000"),
    (vehicle(", start: {position: [0, 1e6, 1]}"), r"start\.position\[1\] must be >= -100000"),
    (vehicle(", arrival_tolerance: 1e308"),
     r"vehicles\[0\]\.arrival_tolerance must be > 0 and <= 1000 m"),
    (vehicle(top="arrival_tolerance: 1e308\n"), r"/m\.yaml: arrival_tolerance must be > 0"),
    (vehicle(top="duration_limit: 1e308\n"), r"duration_limit must be > 0 and <= 3600 s"),
    (vehicle(waypoint="{position: [1, 0, 1], yaw: 90}"),
     r"waypoints\[0\]\.yaw must be >= -6.2832 and <= 6.2832 rad \(radians, not degrees\)"),
    (vehicle(", start: {orientation: [0, 0, 180]}"), r"start\.orientation\[2\] must be >= "),
    (vehicle(top="wind: {type: constant, options: {velocity: [1e308, 0, 0]}}\n"),
     r"wind\.options\.velocity\[0\] must be >= -10000 and <= 10000"),
    # 8: rates
    (vehicle(top="physics_hz: 1000000007\n"),
     r"physics_hz must be a positive integer <= 10000 Hz, got 1000000007"),
    (vehicle(top=f"physics_hz: {10 ** 400}\n"), r"physics_hz must be a positive integer"),
    (vehicle(top="physics_hz: 0\n"), r"physics_hz must be a positive integer"),
    (vehicle(top="physics_hz: 240.0\n"), r"physics_hz must be a positive integer"),
    (vehicle(top="wind: {type: dryden, options: {sample_period: 1.0e-9}}\n"),
     r"wind\.options\.sample_period is set from physics_hz"),
    # NaN and infinity
    (vehicle(waypoint="[1, .nan, 1]"), r"position\[1\] must be a finite number, got nan"),
    (vehicle(waypoint="{position: [1, 0, 1], hold: .inf}"), r"hold must be a finite number"),
    (vehicle(top="duration_limit: -.inf\n"), r"duration_limit must be a finite number"),
    (vehicle(top="wind: {type: gust, options: {amplitude: [1, 0, 0], start_time: .nan, "
                 "duration: 1}}\n"), r"wind\.options\.start_time must be a finite number"),
    # 6: bools are not numbers, numbers and others are not text
    (vehicle(waypoint="{position: [1, 0, 1], hold: true}"),
     r"waypoints\[0\]\.hold must be a number, not a bool"),
    (vehicle(", speed: yes"), r"vehicles\[0\]\.speed must be a number, not a bool"),
    (vehicle(waypoint="[1, true, 1]"), r"position\[1\] must be a number, not a bool"),
    (vehicle(top="physics_hz: true\n"), r"physics_hz must be a positive integer"),
    (vehicle(top="duration_limit: on\n"), r"duration_limit must be a number, not a bool"),
    (vehicle(top="wind: {type: constant, options: {velocity: [true, 0, 0]}}\n"),
     r"wind\.options\.velocity\[0\] must be a number, not a bool"),
    (vehicle(waypoint="{position: [1, 0, 1], hold: '5'}"),
     r"hold must be a finite number, got '5' \(text"),
    ("vehicles:\n  - {type: 5, waypoints: [[1, 0, 1]]}\n",
     r"vehicles\[0\]\.type must be one of "
     r"\['fixedwing', 'multirotor', 'quadplane', 'quadx', 'rocket'\], got 5"),
    ("vehicles:\n  - {type: [quadx], waypoints: [[1, 0, 1]]}\n", r"vehicles\[0\]\.type must be"),
    ("vehicles:\n  - {type: {a: 1}, waypoints: [[1, 0, 1]]}\n", r"vehicles\[0\]\.type must be"),
    (vehicle(", controller: 3"), r"controller for a quadx must be one of \['position'\], got 3"),
    (vehicle(", model: 7"), r"vehicles\[0\]\.model must be text"),
    (vehicle(", model: ../../etc"), r"vehicles\[0\]\.model must be letters, digits"),
    (vehicle(top="wind: {type: 3}\n"), r"wind must be a mapping with type one of"),
    (vehicle(top="wind: {type: [constant]}\n"), r"wind must be a mapping with type one of"),
    (vehicle(top="name: 12\n"), r"/m\.yaml: name must be text"),
    (vehicle(top="name: a/b\n"), r"/m\.yaml: name must be letters"),
    # 5: vehicle names
    (vehicle(", name: 12"), r"vehicles\[0\]\.name must be text .*, got 12 \(quote it"),
    (vehicle(", name: [a]"), r"vehicles\[0\]\.name must be text .*, got \['a'\]"),
    (vehicle(", name: null"), r"vehicles\[0\]\.name must be text .*, got None"),
    (vehicle(", name: no"), r"vehicles\[0\]\.name must be text .*, got False"),
    (vehicle(", name: ''"), r"vehicles\[0\]\.name must be 1 to 64 characters"),
    (vehicle(', name: "a\\nb"'), r"vehicles\[0\]\.name must be printable text on one line"),
    ("vehicles:\n  - {name: q, type: quadx, waypoints: [[1, 0, 1]]}\n"
     "  - {name: q, type: quadx, waypoints: [[1, 0, 1]]}\n",
     r"vehicles\[1\]\.name 'q' is also the name of vehicles\[0\]; vehicle names must be unique"),
    ("vehicles:\n  - {name: vehicle1, type: quadx, waypoints: [[1, 0, 1]]}\n"
     "  - {type: quadx, waypoints: [[1, 0, 1]]}\n",
     r"vehicles\[1\] has no name, so it is named 'vehicle1', which is also the name of "),
    # unknown keys, non-text keys, at every level
    (vehicle(top="colour: red\n"), r"/m\.yaml: mission has unknown fields \['colour'\]"),
    (vehicle(", colour: red"), r"vehicles\[0\] has unknown fields \['colour'\]"),
    (vehicle(", start: {position: [0, 0, 1], heading: 1}"),
     r"vehicles\[0\]\.start has unknown fields \['heading'\]"),
    (vehicle(waypoint="{position: [1, 0, 1], wait: 1}"),
     r"waypoints\[0\] has unknown fields \['wait'\]"),
    (vehicle(top="wind: {type: constant, strength: 1}\n"), r"wind has unknown fields"),
    (vehicle(", 1: 2, zz: 3"), r"vehicles\[0\] has a key 1 that is not a field name"),
    (vehicle(top="wind: {type: constant, options: {1: 2}}\n"),
     r"wind\.options has a key 1 that is not an option name"),
    (vehicle(top="wind: {type: constant, options: {velocity: [[1], 0, 0]}}\n"),
     r"wind\.options\.velocity\[0\] must be a finite number"),
    (vehicle(top="wind: {type: constant, options: {velocity: {x: 1}}}\n"),
     r"wind\.options\.velocity must be a number, a list of up to 3 numbers or a word"),
    # empty or wrong containers
    ("vehicles: []\n", r"vehicles must be a non-empty list, got \[\]"),
    ("vehicles: {type: quadx}\n", r"vehicles must be a non-empty list"),
    ("vehicles:\n  - {type: quadx, waypoints: []}\n", r"vehicles\[0\]\.waypoints must be a "
                                                      r"non-empty list"),
    ("vehicles:\n  - {type: quadx, waypoints: null}\n", r"vehicles\[0\]\.waypoints must be"),
    ("vehicles:\n  - quadx\n", r"vehicles\[0\] must be a mapping, got 'quadx'"),
    (vehicle(waypoint="7"), r"waypoints\[0\] must be \[x, y, z\] or a mapping with position"),
    (vehicle(", start: null"), r"vehicles\[0\]\.start must be a mapping"),
    (vehicle(", start: {orientation: [0, 0]}"),
     r"start\.orientation needs 3 numbers \[roll, pitch, yaw\], got 2"),
    (vehicle(waypoint="{hold: 1}"), r"waypoints\[0\]\.position is required"),
    # zero-length legs
    (vehicle(waypoint="[0, 0, 1]"),
     r"waypoints\[0\]\.position \[0.0, 0.0, 1.0\] is the same point as the start position"),
    (vehicle(waypoint="[1, 0, 1], [1, 0, 1]"),
     r"waypoints\[1\]\.position .* is the same point as waypoints\[0\]"),
]


@pytest.mark.parametrize("text, match", BAD_FIELDS)
def test_bad_fields_are_one_line_naming_the_field(tmp_path, text, match):
    with pytest.raises(MissionError, match=match) as error:
        load_text(tmp_path, text)
    assert_one_line_error(error, tmp_path / "m.yaml")


def test_counts_are_bounded():
    many_waypoints = {"vehicles": [{"type": "quadx", "waypoints": [
        [i + 1.0, 0, 1] for i in range(mission_module.MAX_WAYPOINTS + 1)]}]}
    with pytest.raises(MissionError, match=r"vehicles\[0\]\.waypoints has 1001 entries; at "
                                           r"most 1000"):
        Mission.from_dict(many_waypoints)
    many_vehicles = {"vehicles": [{"type": "quadx", "name": f"q{i}", "waypoints": [[1, 0, 1]]}
                                  for i in range(mission_module.MAX_VEHICLES + 1)]}
    with pytest.raises(MissionError, match=r"vehicles has 101 entries; at most 100"):
        Mission.from_dict(many_vehicles)


def test_a_mission_at_the_limits_is_valid_and_its_arithmetic_stays_finite():
    """Every number at its bound: the reference through it is finite everywhere."""
    limit = mission_module.MAX_COORDINATE
    mission = Mission.from_dict({
        "name": "edge", "physics_hz": mission_module.MAX_PHYSICS_HZ,
        "duration_limit": mission_module.MAX_DURATION,
        "arrival_tolerance": mission_module.MAX_TOLERANCE,
        "vehicles": [{"type": "quadx", "speed": mission_module.MIN_SPEED,
                      "start": {"position": [-limit, -limit, -limit],
                                "orientation": [0, 0, -mission_module.MAX_ANGLE]},
                      "waypoints": [{"position": [limit, limit, limit],
                                     "yaw": mission_module.MAX_ANGLE,
                                     "hold": mission_module.MAX_HOLD},
                                    {"position": [limit, -limit, limit],
                                     "speed": mission_module.MAX_SPEED}]}]})
    spec = mission.vehicles[0]
    points = np.array([spec.start_position] + [w.position for w in spec.waypoints])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or invalid-value warnings either
        trajectory = MinimumSnapTrajectory(
            points, speed=np.array([w.speed or spec.speed for w in spec.waypoints]),
            yaw=np.array([0.0, mission_module.MAX_ANGLE, mission_module.MAX_ANGLE]),
            hold_times=np.array([0.0] + [w.hold for w in spec.waypoints]))
        assert math.isfinite(trajectory.duration) and trajectory.duration > 3600
        for time in np.linspace(0.0, trajectory.duration, 7):
            point = trajectory.evaluate(time)
            assert all(np.isfinite(v).all() for v in (point.position, point.velocity,
                                                       point.acceleration, point.snap))


def test_huge_values_are_shown_short():
    lol = [1] * 9
    for _ in range(8):  # nine to the ninth elements, shared: repr() would never finish
        lol = [lol] * 9
    with pytest.raises(MissionError) as error:
        Mission.from_dict({"name": lol, "vehicles": []}, source="m")
    assert len(str(error.value)) < 300


def test_the_name_falls_back_to_the_file_name_or_mission(tmp_path):
    assert load_text(tmp_path, ONE_VEHICLE, name="survey_1.yaml").name == "survey_1"
    assert Mission.from_yaml_text(ONE_VEHICLE).name == "mission"
    assert Mission.from_dict({"vehicles": [{"type": "quadx", "waypoints": [[1, 0, 1]]}]},
                             source="<dict>").name == "mission"
    with pytest.raises(MissionError, match=r"has no name and its file name 'my survey' cannot"):
        load_text(tmp_path, ONE_VEHICLE, name="my survey.yaml")
