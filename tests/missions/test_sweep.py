"""Mission sweeps: parameter parsing, the grid, flying it in this process, the CSV, the CLI.

Flying on Ray is tested on a real cluster in tests/ray_cluster/test_sweep_cluster.py."""

import csv
import importlib.util

import pytest

from pyflyt_like import cli
from pyflyt_like.missions.mission_yaml import load_mission_text
from pyflyt_like.missions.sweep import (
    MAX_POINTS,
    RESULT_COLUMNS,
    SweepError,
    SweepParameter,
    grid_points,
    run_sweep,
    sweep_columns,
    write_sweep_csv,
)

HOP_YAML = """\
name: hop
duration_limit: 20.0
vehicles:
  - name: quad
    type: quadx
    start: {position: [0.0, 0.0, 1.0]}
    speed: 0.5
    waypoints:
      - [0.6, 0.0, 1.0]
"""
TWO_VEHICLES = {"name": "pair", "vehicles": [
    {"name": "a", "type": "quadx", "waypoints": [[1.0, 0.0, 1.0]]},
    {"name": "b", "type": "quadx", "start": {"position": [0.0, 2.0, 1.0]},
     "waypoints": [[1.0, 2.0, 1.0]]}]}


def hop():
    return load_mission_text(HOP_YAML, "hop.yaml")


def test_values_are_read_as_a_yaml_list():
    assert SweepParameter.parse("speed=0.5,1,1.5e0").values == (0.5, 1, 1.5)
    assert SweepParameter.parse("wind.velocity=[0,0,0],[2,0,0]").values == ([0, 0, 0],
                                                                           [2, 0, 0])
    assert SweepParameter.parse("model = cf2x, crazyflie21").values == ("cf2x", "crazyflie21")


@pytest.mark.parametrize("text, message", [
    ("speed", "NAME=V1,V2"),
    ("speed=", "has no values"),
    ("speed=[1,2", "cannot read the values"),
    ("colour=1", "unknown field"),
    ("vehicles.x.speed=1", "unknown field"),
    ("wind..type=1", "dotted path"),
])
def test_bad_parameters_name_themselves_and_what_is_allowed(text, message):
    with pytest.raises(SweepError, match=message):
        SweepParameter.parse(text)


def test_the_grid_is_the_product_in_order_with_the_last_parameter_fastest():
    parameters = [SweepParameter.parse("speed=0.25,0.5"), SweepParameter.parse("seed=3,4"),
                  SweepParameter.parse("duration_limit=30")]
    points = grid_points(hop(), parameters, source="hop.yaml")
    assert [(p.index, p.mission.vehicles[0].speed, p.seed, p.mission.duration_limit)
            for p in points] == [(0, 0.25, 3, 30.0), (1, 0.25, 4, 30.0),
                                 (2, 0.5, 3, 30.0), (3, 0.5, 4, 30.0)]
    assert points[1].label == "point 1 (speed=0.25, seed=4, duration_limit=30)"


def test_vehicle_fields_set_every_vehicle_unless_one_is_named():
    every = grid_points(TWO_VEHICLES, [SweepParameter.parse("speed=2.0")])[0].mission
    assert [v.speed for v in every.vehicles] == [2.0, 2.0]
    one = grid_points(TWO_VEHICLES, [SweepParameter.parse("vehicles.1.speed=2.0")])[0].mission
    assert [v.speed for v in one.vehicles] == [1.0, 2.0]
    moved = grid_points(TWO_VEHICLES, [SweepParameter.parse("start.position=[0,0,3]")])
    assert [v.start_position for v in moved[0].mission.vehicles] == [(0.0, 0.0, 3.0)] * 2


def test_wind_options_have_a_short_form_and_need_a_wind():
    windy = dict(hop(), wind={"type": "constant", "options": {}})
    point = grid_points(windy, [SweepParameter.parse("wind.velocity=[1,0,0]")])[0]
    assert point.mission.wind == {"type": "constant", "options": {"velocity": [1, 0, 0]}}
    both = grid_points(hop(), [SweepParameter.parse("wind.type=constant"),
                               SweepParameter.parse("wind.options.velocity=[0,1,0]")])[0]
    assert both.mission.wind == {"type": "constant", "options": {"velocity": [0, 1, 0]}}
    with pytest.raises(SweepError, match="the mission has no wind"):
        grid_points(hop(), [SweepParameter.parse("wind.velocity=[1,0,0]")])


def test_the_mission_data_is_not_changed():
    data = hop()
    grid_points(data, [SweepParameter.parse("speed=0.1,0.2")])
    assert data == hop()


@pytest.mark.parametrize("parameters, message", [
    (["speed=0.5,200"], r"hop.yaml point 1 \(speed=200\): vehicles\[0\].speed must be"),
    (["seed=-1"], r"--param seed: each value must be an integer in \[0, 2\*\*63\)"),
    (["seed=1.5"], r"--param seed: each value must be an integer in \[0, 2\*\*63\)"),
    (["speed=1", "speed=2"], "is given twice"),
    (["vehicles.3.speed=1"], "has 1 vehicles"),
    (["name=a/b"], "name must be letters"),
])
def test_every_point_is_validated_before_flying(parameters, message):
    with pytest.raises(SweepError, match=message):
        grid_points(hop(), [SweepParameter.parse(p) for p in parameters], source="hop.yaml")


def test_a_grid_larger_than_the_limit_is_refused():
    values = ",".join(str(i) for i in range(1, 102))  # 101 x 101 > 10 000
    with pytest.raises(SweepError, match=f"has 10201 points; at most {MAX_POINTS}"):
        grid_points(hop(), [SweepParameter.parse(f"seed={values}"),
                            SweepParameter.parse(f"duration_limit={values}")])


def test_flying_in_this_process_gives_one_row_per_point_with_physical_results():
    points = grid_points(hop(), [SweepParameter.parse("speed=0.3,0.6")])
    finished = []
    rows = run_sweep(points, serial=True, on_point=lambda point, r: finished.append(point))
    assert finished == points
    assert [row["point"] for row in rows] == [0, 1]
    slow, fast = rows
    for row in rows:
        assert row["completed"] is True and row["error"] == ""
        assert row["vehicle"] == "quad" and row["type"] == "quadx"
        assert row["waypoints_reached"] == row["waypoints_total"] == 1
        assert 0.0 < row["rms_error"] <= row["max_error"] < 0.5
    # 0.6 m at 0.3 m/s takes about twice as long as at 0.6 m/s.
    assert 1.6 < slow["completion_time"] / fast["completion_time"] < 2.4
    assert run_sweep(points, serial=True) == rows  # same seed, same flight


def test_a_point_that_cannot_be_flown_is_a_row_with_its_error():
    # A duration limit shorter than the trajectory passes the file check but not the flight's.
    points = grid_points(hop(), [SweepParameter.parse("duration_limit=20,0.5")])
    rows = run_sweep(points, serial=True)
    assert rows[0]["error"] == "" and rows[0]["completed"]
    assert rows[1]["error"].startswith("MissionError: ") and "duration_limit 0.5 s" in \
        rows[1]["error"]
    assert rows[1]["completed"] is None and rows[1]["vehicle"] is None


def test_the_csv_has_the_documented_columns_and_is_written_atomically(tmp_path):
    parameters = [SweepParameter.parse("start.position=[0,0,1],[0,0,1.5]")]
    rows = run_sweep(grid_points(hop(), parameters), serial=True)
    path = write_sweep_csv(rows, parameters, tmp_path / "table.csv")
    with open(path, newline="") as stream:
        table = list(csv.reader(stream))
    assert table[0] == sweep_columns(parameters) == [
        "point", "start.position", "seed", *RESULT_COLUMNS]
    assert [line[:3] for line in table[1:]] == [["0", "[0, 0, 1]", "0"], ["1", "[0, 0, 1.5]", "0"]]
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]  # no temporary left


def sweep(*args):
    return cli.main(["sweep", *args])


def test_the_command_flies_the_grid_and_writes_the_table(tmp_path, capfd):
    mission = tmp_path / "hop.yaml"
    mission.write_text(HOP_YAML)
    out = tmp_path / "results" / "hop.csv"
    assert sweep(str(mission), "--param", "speed=0.3,0.6", "--serial", "--output", str(out)) == 0
    captured = capfd.readouterr()
    assert "2 points in this process" in captured.out and "2 of 2 points completed" in \
        captured.out
    assert "[2/2] point 1 (speed=0.6): completed" in captured.err
    assert "pybullet" not in captured.out.lower() + captured.err.lower()  # banners hidden
    with open(out, newline="") as stream:
        assert [row["speed"] for row in csv.DictReader(stream)] == ["0.3", "0.6"]


def test_the_command_exits_1_when_a_point_cannot_be_flown(tmp_path, capfd):
    out = tmp_path / "t.csv"
    assert sweep("--param", "duration_limit=60,0.5", "--serial", "--output", str(out)) == 1
    assert "could not be flown: points [1]" in capfd.readouterr().out
    assert out.exists()


@pytest.mark.parametrize("args, message", [
    (["--serial"], "give at least one --param"),
    (["--param", "colour=red", "--serial"], "unknown field"),
    (["--param", "speed=1", "--serial", "--seed", "-1"], "--seed must be an integer in [0, 2**63)"),
    (["--param", "speed=1", "--serial", "--address", "auto"], "cannot be combined"),
    (["--param", "speed=1", "--serial", "--output", "table.txt"], "must be a .csv file"),
    (["missing.yaml", "--param", "speed=1", "--serial"], "missing.yaml"),
])
def test_bad_input_is_one_line_and_exit_2_before_flying(args, message, capfd, tmp_path,
                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert sweep(*args) == 2
    err = capfd.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "output").exists()


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed")
def test_without_ray_the_command_names_the_extra_and_serial(capfd):
    assert sweep("--param", "speed=1") == 2
    assert 'pip install "pyflyt_like[ray]" (or add --serial)' in capfd.readouterr().err
