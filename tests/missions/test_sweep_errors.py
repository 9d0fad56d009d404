"""Bad sweep input: each is a one-line SweepError (TypeError too for a wrong type) naming the
parameter or argument, or, from `pyflyt-like sweep`, exit 2 with one line before flying.

Nothing here flies: every input is refused while the grid is built."""

import numpy as np
import pytest

from pyflyt_like import cli
from pyflyt_like.common import validation
from pyflyt_like.missions import sweep_flying, sweep_grid
from pyflyt_like.missions.mission import Mission
from pyflyt_like.missions.mission_yaml import load_mission_text
from pyflyt_like.missions.sweep import (
    MAX_PARAMETER_CHARS,
    MAX_POINTS,
    MAX_VALUE_ITEMS,
    SweepError,
    SweepParameter,
    SweepTypeError,
    check_flight_seed,
    check_ray_address,
    grid_points,
    run_sweep,
)
from pyflyt_like.missions.sweep_parameters import format_value

from .test_sweep import HOP_YAML

# Seven levels of ten aliases: 10**7 ones from a 200-character argument.
BILLION_LAUGHS = "speed=&a [1,1,1,1,1,1,1,1,1,1]" + "".join(
    f",&{b} [{','.join([f'*{a}'] * 10)}]" for a, b in zip("abcdef", "bcdefg"))


def hop():
    return load_mission_text(HOP_YAML, "hop.yaml")


# ------------------------------------------------------------------ SweepParameter.parse
@pytest.mark.parametrize("text, error, pattern", [
    (5, SweepTypeError, "a sweep parameter must be text NAME=V1,V2,..., got 5"),
    (None, SweepTypeError, "a sweep parameter must be text"),
    (b"speed=1", SweepTypeError, "a sweep parameter must be text"),
    ("speed", SweepError, r"must be NAME=V1,V2,\.\.\., got 'speed'"),
    ("", SweepError, r"must be NAME=V1,V2,\.\.\., got ''"),
    ("speed=", SweepError, r"--param speed has no values; give NAME=V1,V2"),
    ("speed=   ", SweepError, "--param speed has no values"),
    ("speed=,1", SweepError, "--param speed: cannot read the values ',1' as a list"),
    ("speed=1,,2", SweepError, "--param speed: cannot read the values '1,,2' as a list"),
    ("speed=[1,2", SweepError, "--param speed: cannot read the values"),
    ("speed=1]", SweepError, "--param speed: cannot read the values '1]'"),
    ("speed=\x01", SweepError, r"--param speed: cannot read .*unacceptable character #x0001"),
    ("speed=1\n---\n2", SweepError, "--param speed: cannot read the values"),
    ("speed=&a [*a]", SweepError, r"--param speed: .*YAML aliases \(\*name\) are not allowed"),
    ("wind.velocity=&a {x: *a}", SweepError, "--param wind.velocity: .*aliases"),
    (BILLION_LAUGHS, SweepError, "--param speed: .*aliases"),
    ("speed=&a 1,*a", SweepError, "--param speed: .*aliases"),
    ("speed=*undefined", SweepError, "--param speed: .*aliases"),
    ("wind.options={a: 1, a: 2}", SweepError, "--param wind.options: .*duplicate key 'a'"),
    ("speed=" + "[" * 25 + "]" * 25, SweepError, "nested deeper than 20 levels"),
    ("seed=1" + "0" * 5000, SweepError, r"--param seed: cannot read .*4300 digits"),
    ("speed=!!python/object:object {}", SweepError, "--param speed: cannot read the values"),
    ("speed=!custom 1", SweepError, "--param speed: cannot read the values"),
    ("speed=" + "1," * MAX_PARAMETER_CHARS, SweepError,
     f"characters long; at most {MAX_PARAMETER_CHARS} are allowed"),
    ("speed=" + ",".join(["1"] * (MAX_POINTS + 1)), SweepError,
     f"--param speed has {MAX_POINTS + 1} values; a sweep has at most {MAX_POINTS} points"),
], ids=["int", "none", "bytes", "no-equals", "empty", "no-values", "blank-values",
        "leading-comma", "empty-value", "unclosed", "stray-bracket", "control-char",
        "two-documents", "self-alias", "self-alias-mapping", "billion-laughs",
        "harmless-alias", "undefined-alias", "duplicate-key", "too-deep", "huge-integer",
        "python-tag", "unknown-tag", "too-long", "too-many-values"])
def test_values_that_cannot_be_read_name_the_parameter(text, error, pattern):
    with pytest.raises(error, match=pattern) as caught:
        SweepParameter.parse(text)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400


@pytest.mark.parametrize("text, pattern", [
    ("=1", "must be a dotted path such as speed or wind.options.velocity, got ''"),
    ("wind..type=1", "must be a dotted path"),
    (".speed=1", "must be a dotted path"),
    ("speed.=1", "must be a dotted path"),
    ("colour=1", "--param colour: unknown field; allowed: seed, the mission's"),
    ("seed.x=1", "--param seed.x: unknown field"),
    ("vehicles=1", "--param vehicles: unknown field"),
    ("vehicles.0=1", "--param vehicles.0: unknown field"),
    ("vehicles.x.speed=1", "--param vehicles.x.speed: unknown field"),
    ("vehicles.\u00b2.speed=1", "unknown field"),  # superscript two: isdigit(), not int()
    ("vehicles.\u0663.speed=1", "unknown field"),  # Arabic-Indic three: ASCII digits only
    ("vehicles.-1.speed=1", "unknown field"),
    ("vehicles.0.colour=1", "--param vehicles.0.colour: unknown field"),
    ("vehicles.100.speed=1", r"--param vehicles.100.speed: the vehicle number must be 0 to 99"),
    ("vehicles." + "9" * 5000 + ".speed=1", "the vehicle number must be 0 to 99"),
    ("x" * 10_000 + "=1", r"--param 'xxxx.*\.\.\..*': unknown field"),
])
def test_unknown_names_list_the_allowed_fields(text, pattern):
    with pytest.raises(SweepError, match=pattern) as caught:
        SweepParameter.parse(text)
    assert len(str(caught.value)) < 400


@pytest.mark.parametrize("text, pattern", [
    ("name=!!set {a: null}", r"--param name, value 1 of 1 holds a value of type set "
                             r"\(\{'a'\}\); values are numbers, text, true/false, null, and "
                             "lists and mappings of them"),
    ("waypoints=[!!binary aGk=]", r"--param waypoints, value 1 of 1 holds a value of type "
                                  r"bytes \(b'hi'\)"),
    ("speed=1,2020-01-01", r"--param speed, value 2 of 2 holds a value of type date "
                           r".*\(quote it to mean text: '2020-01-01'\)"),
    ("speed=2020-01-01 10:00:00", r"holds a value of type datetime .*\(quote it to mean text"),
    ("wind.options={!!binary aGk=: 1}", "--param wind.options, value 1 of 1 has a mapping key "
                                        "b'hi' of type bytes; keys are text"),
])
def test_values_of_other_yaml_types_are_type_errors(text, pattern):
    with pytest.raises(SweepTypeError, match=pattern) as caught:
        SweepParameter.parse(text)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)


def test_text_that_is_not_unicode_is_refused():
    with pytest.raises(SweepError, match=r"--param name, value 1 of 1 holds text that is not "
                                         r"valid Unicode \(a lone surrogate\)"):
        SweepParameter.parse('name="\\ud800"')


def test_values_are_plain_data_numpy_numbers_included():
    parameter = SweepParameter("start.position", (
        (np.float32(0.5), np.int64(2), np.float64(1.0)), [np.int32(1), True, None, "a"],
        {"x": np.bool_(True)}))
    assert parameter.values == ([0.5, 2, 1.0], [1, True, None, "a"], {"x": True})
    assert [type(v) for v in parameter.values[0]] == [float, int, float]
    assert type(parameter.values[2]["x"]) is bool
    assert format_value(parameter.values[0]) == "[0.5, 2, 1.0]"


def _nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def _recursive():
    value = [1]
    value.append(value)
    return value


def _shared(levels):
    value = [1] * 10
    for _ in range(levels):
        value = [value] * 10
    return value


@pytest.mark.parametrize("name, values, error, pattern", [
    (5, (1,), SweepTypeError, "a sweep parameter name must be text, got 5"),
    ("speed", [1, 2], SweepTypeError, r"--param speed: values must be a tuple, got \[1, 2\]"),
    ("speed", (), SweepError, "--param speed has no values"),
    ("speed", (1,) * (MAX_POINTS + 1), SweepError, f"has {MAX_POINTS + 1} values"),
    ("speed", ({1, 2},), SweepTypeError, "--param speed, value 1 of 1 holds a value of type set"),
    ("speed", (1, object()), SweepTypeError, "--param speed, value 2 of 2 holds a value of "
                                             "type object"),
    ("speed", (1j,), SweepTypeError, r"holds a value of type complex \(1j\)"),
    ("speed", (b"1",), SweepTypeError, "holds a value of type bytes"),
    ("speed", ({(1, 2): 3},), SweepTypeError, r"has a mapping key \(1, 2\) of type tuple"),
    ("speed", (_recursive(),), SweepError, "--param speed, value 1 of 1 contains itself"),
    ("speed", (_nested(25),), SweepError, "is nested deeper than 20 levels"),
    ("speed", (_shared(5),), SweepError, f"holds more than {MAX_VALUE_ITEMS} items"),
    ("colour", (1,), SweepError, "--param colour: unknown field"),
], ids=["name-int", "list", "empty", "too-many", "set", "object", "complex", "bytes",
        "tuple-key", "recursive", "too-deep", "shared-expansion", "unknown"])
def test_the_constructor_checks_what_parse_checks(name, values, error, pattern):
    with pytest.raises(error, match=pattern):
        SweepParameter(name, values)


# ------------------------------------------------------------------ the grid
@pytest.mark.parametrize("kwargs, error, pattern", [
    (dict(parameters="speed=1"), SweepTypeError, "parameters must be a list of SweepParameter"),
    (dict(parameters=["speed=1"]), SweepTypeError, "parameters must be a list of SweepParameter"),
    (dict(seed=True), SweepTypeError, r"seed must be an integer in \[0, 2\*\*63\), got True"),
    (dict(seed=None), SweepTypeError, "seed must be an integer"),
    (dict(seed=1.0), SweepTypeError, "seed must be an integer"),
    (dict(seed="3"), SweepTypeError, "seed must be an integer"),
    (dict(seed=-1), SweepError, r"seed must be an integer in \[0, 2\*\*63\), got -1"),
    (dict(seed=2**63), SweepError, "seed must be an integer"),
    (dict(source=5), SweepTypeError, "source must be text"),
])
def test_bad_grid_arguments_are_refused(kwargs, error, pattern):
    arguments = dict(parameters=[SweepParameter.parse("speed=0.5")]) | kwargs
    with pytest.raises(error, match=pattern):
        grid_points(hop(), **arguments)


@pytest.mark.parametrize("values, error", [
    ("-1", SweepError), (str(2**63), SweepError), ("1.5", SweepTypeError),
    ("true", SweepTypeError), ("null", SweepTypeError), ("'3'", SweepTypeError),
    ("[1]", SweepTypeError),
])
def test_seed_values_are_integers_in_the_seed_range(values, error):
    with pytest.raises(error, match=r"--param seed: each value must be an integer in "
                                    r"\[0, 2\*\*63\)"):
        grid_points(hop(), [SweepParameter.parse(f"seed=0,{values}")])


def test_numpy_and_large_seeds_are_seeds():
    assert check_flight_seed("seed", np.int64(7)) == 7
    assert type(check_flight_seed("seed", np.uint8(7))) is int
    points = grid_points(hop(), [SweepParameter.parse(f"seed=0,{2**63 - 1}")], seed=np.int32(3))
    assert [p.seed for p in points] == [0, 2**63 - 1]


def test_a_refused_grid_leaves_the_mission_data_as_it_was():
    data = hop()
    with pytest.raises(SweepError):
        grid_points(data, [SweepParameter.parse("speed=0.1,200"),
                           SweepParameter.parse("start.position=[0,0,2]")])
    assert data == hop()


def test_a_grid_too_large_for_memory_is_refused_at_its_first_point(monkeypatch):
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 1e6)  # 1 MB
    built = []

    class CountingMission:
        @staticmethod
        def from_dict(data, source):
            built.append(source)
            return Mission.from_dict(data, source=source)

    monkeypatch.setattr(sweep_grid, "Mission", CountingMission)
    values = ",".join(str(i) for i in range(1000))
    with pytest.raises(SweepError, match=r"a sweep of 1000 points needs about 0.003\d* GiB, "
                                         r"more than the 0.000931 GiB allowed \(half this "
                                         r"machine's memory\); sweep fewer points"):
        grid_points(hop(), [SweepParameter.parse(f"seed={values}")])
    assert len(built) == 1


def test_long_values_are_cut_in_messages_but_not_in_the_table():
    waypoints = [[i + 1.0, 0.0, 1.0] for i in range(20)]
    point = grid_points(hop(), [SweepParameter("waypoints", (waypoints,))])[0]
    assert point.label == "point 0 (waypoints=[[1.0, 0.0, 1.0], [2.0, 0.0, 1.0], [3...)"
    with pytest.raises(SweepError, match=r"^hop.yaml point 0 \(waypoints=\[\[1.0, 0.0, 1.0\], "
                                         r"\[2.0, 0.0, 1.0\], \[3...\)"):
        grid_points(hop(), [SweepParameter("waypoints", ([*waypoints, [1e9, 0, 0]],))],
                    source="hop.yaml")


# ------------------------------------------------------------------ flying
@pytest.mark.parametrize("kwargs, error, pattern", [
    (dict(points="points"), SweepTypeError, "points must be a list of SweepPoint"),
    (dict(points=[1, 2]), SweepTypeError, "points must be a list of SweepPoint"),
    (dict(serial="yes"), SweepTypeError, "serial must be a bool"),
    (dict(serial=1), SweepTypeError, "serial must be a bool"),
    (dict(on_point=5), SweepTypeError, "on_point must be None or callable"),
    (dict(serial=False, address=""), SweepError, "address must be 'auto', 'local' or HOST:PORT"),
    (dict(serial=False, address=6379), SweepTypeError, "address must be"),
])
def test_bad_run_arguments_are_refused_before_flying(kwargs, error, pattern, monkeypatch):
    monkeypatch.setattr(sweep_flying, "fly_point", lambda point: pytest.fail("flew"))
    arguments = dict(points=grid_points(hop(), [SweepParameter.parse("speed=0.5")]),
                     serial=True) | kwargs
    with pytest.raises(error, match=pattern):
        run_sweep(**arguments)


@pytest.mark.parametrize("address", [
    None, "auto", "local", "127.0.0.1:6379", "ray://head:10001", "[::1]:6379",
    "head-node.cluster.local:6379", "localhost:1", "localhost:65535"])
def test_ray_addresses(address):
    assert check_ray_address("address", address) == address


@pytest.mark.parametrize("address, error", [
    ("", SweepError), (" ", SweepError), ("auto ", SweepError), ("AUTO", SweepError),
    ("host", SweepError), ("host:", SweepError), (":6379", SweepError),
    ("host:0", SweepError), ("host:65536", SweepError), ("host:999999", SweepError),
    ("host:port", SweepError), ("host:-1", SweepError), ("ray://:10001", SweepError),
    ("a b:1", SweepError), ("host:6379\n", SweepError), ("host:\u0663", SweepError),
    (6379, SweepTypeError), (True, SweepTypeError), (b"auto", SweepTypeError),
])
def test_addresses_ray_cannot_mean_are_refused(address, error):
    with pytest.raises(error, match=r"--address must be 'auto', 'local' or HOST:PORT \(e\.g\. "
                                    r"127\.0\.0\.1:6379, ray://HOST:10001\), got"):
        check_ray_address("--address", address)


# ------------------------------------------------------------------ the command
def sweep(*args):
    return cli.main(["sweep", *args])


@pytest.mark.parametrize("args, message", [
    (["--param", "speed=&a [*a]"], "--param speed: cannot read the values '&a [*a]' as a "
                                   "list (YAML aliases (*name) are not allowed"),
    (["--param", BILLION_LAUGHS], "aliases"),
    (["--param", "name=!!set {a: null}"], "--param name, value 1 of 1 holds a value of type set"),
    (["--param", "waypoints=[!!binary aGk=]"], "holds a value of type bytes"),
    (["--param", "duration_limit=2020-01-01"], "(quote it to mean text: '2020-01-01')"),
    (["--param", "vehicles.\u00b2.speed=1"], "unknown field"),
    (["--param", "vehicles.5.speed=1"], "--param vehicles.5.speed: the mission has 1 vehicles"),
    (["--param", "speed=1,,2"], "cannot read the values '1,,2'"),
    (["--param", "speed="], "--param speed has no values"),
    (["--param", "speed"], "must be NAME=V1,V2"),
    (["--param", "speed=true"], "point 0 (speed=True): vehicles[0].speed must be a number, "
                                "not a bool"),
    (["--param", "speed='0.5'"], "vehicles[0].speed must be a finite number, got '0.5'"),
    (["--param", "speed=.nan"], "vehicles[0].speed must be a finite number"),
    (["--param", "seed=-1"], "--param seed: each value must be an integer in [0, 2**63)"),
    (["--param", f"seed={2**63}"], "--param seed: each value must be an integer"),
    (["--param", "seed=true"], "--param seed: each value must be an integer"),
    (["--param", "seed=1.5"], "--param seed: each value must be an integer"),
    (["--param", "seed=null"], "--param seed: each value must be an integer"),
    (["--param", "speed=1", "--param", "speed=2"], "--param speed is given twice"),
    (["--param", "wind.velocity=[1,0,0]"], "--param wind.velocity: the mission has no wind"),
    (["--param", "seed=" + ",".join(map(str, range(101))), "--param",
      "speed=" + ",".join(["0.5"] * 100)], "the sweep has 10100 points; at most 10000"),
    (["--param", "speed=1", "--seed", "-1"], "--seed must be an integer in [0, 2**63), got -1"),
    (["--param", "speed=1", "--seed", str(2**63)], "--seed must be an integer in [0, 2**63)"),
    (["--param", "speed=1", "--seed", "1.5"], "argument --seed: invalid int value: '1.5'"),
    (["--param", "speed=1", "--seed", "true"], "argument --seed: invalid int value: 'true'"),
    (["--param", "speed=1", "--address", ""], "--address must be 'auto', 'local' or HOST:PORT"),
    (["--param", "speed=1", "--address", "head:99999"], "--address must be"),
    (["--param", "speed=1", "--address", "auto", "--serial"], "cannot be combined"),
    (["--serial"], "give at least one --param"),
    (["--param", "speed=1", "--output", ""], "--output must be the path of a .csv file, got ''"),
    (["--param", "speed=1", "--output", "  "], "--output must be the path of a .csv file"),
    (["--param", "speed=1", "--output", "t.txt"], "--output must be a .csv file, got t.txt"),
    (["--param", "speed=1", "--output", ".csv"], "--output must be a .csv file"),
    (["--param", "speed=1", "--output", "dir.csv/"], "--output names a folder (it ends with "
                                                     "'/')"),
    (["--param", "speed=1", "--output", "a\0b.csv"], "--output must not contain a NUL"),
    (["--param", "speed=1", "--output", "x" * 300 + ".csv"],
     "--output: the file name 'xxxx"),
    (["--param", "speed=1", "--output", "x" * 238 + ".csv"], "is 242 bytes long; at most 237"),
    (["--param", "speed=1", "--output", "\u00e9" * 119 + ".csv"], "is 242 bytes long"),
    (["--param", "speed=1", "--output", "d" * 256 + "/t.csv"], "the folder name 'dddd"),
    (["--param", "speed=1", "--output", "/".join(["d" * 250] * 20) + "/t.csv"],
     "cannot be checked: File name too long"),
    (["missing.yaml", "--param", "speed=1"], "mission file missing.yaml not found"),
], ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None)
def test_bad_input_is_one_line_and_exit_2_and_creates_nothing(args, message, capfd, tmp_path,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hop.yaml").write_text(HOP_YAML)
    if not args[0].endswith(".yaml"):
        args = ["hop.yaml", *args]
    if "--address" not in args:
        args = [*args, "--serial"]
    assert sweep(*args) == 2
    captured = capfd.readouterr()
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err
    assert captured.out == ""
    assert [p.name for p in tmp_path.iterdir()] == ["hop.yaml"]


def test_the_command_refuses_a_grid_too_large_for_memory(capfd, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 1e6)
    assert sweep("--param", "seed=" + ",".join(map(str, range(1000))), "--serial") == 2
    err = capfd.readouterr().err
    assert "a sweep of 1000 points needs about" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_an_existing_table_is_untouched_by_a_refused_sweep(capfd, tmp_path):
    table = tmp_path / "old.csv"
    table.write_text("point,seed\n0,0\n")
    assert sweep("--param", "speed=&a [*a]", "--serial", "--output", str(table)) == 2
    assert table.read_text() == "point,seed\n0,0\n"
    assert list(tmp_path.iterdir()) == [table]
