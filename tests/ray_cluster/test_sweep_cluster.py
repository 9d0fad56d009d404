"""`pyflyt-like sweep --address`: a 4-point mission grid flown as Ray tasks on a real cluster."""

from __future__ import annotations

import csv
import subprocess
import sys

from pyflyt_like.missions.mission_yaml import load_mission_text
from pyflyt_like.missions.sweep import SweepParameter, grid_points, run_sweep, sweep_columns

from .ray_required import import_ray

import_ray()

HOP_YAML = """\
name: hop
duration_limit: 20.0
vehicles:
  - {name: quad, type: quadx, start: {position: [0.0, 0.0, 1.0]}, waypoints: [[0.6, 0.0, 1.0]]}
"""
PARAMETERS = ("speed=0.3,0.6", "seed=0,1")


def test_a_four_point_sweep_on_the_cluster_writes_the_table_of_the_serial_flights(
        cluster, tmp_path):
    mission = tmp_path / "hop.yaml"
    mission.write_text(HOP_YAML)
    table = tmp_path / "hop.csv"
    run = subprocess.run(
        [sys.executable, "-m", "pyflyt_like", "sweep", str(mission), "--address",
         cluster.address, "--output", str(table),
         *(argument for p in PARAMETERS for argument in ("--param", p))],
        capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert f"4 points on the Ray cluster at {cluster.address}" in run.stdout
    assert "4 of 4 points completed" in run.stdout
    assert sorted(line.split("]")[0] for line in run.stderr.splitlines()) == [
        "[1/4", "[2/4", "[3/4", "[4/4"]

    with open(table, newline="") as stream:
        reader = csv.reader(stream)
        header, *rows = list(reader)
    parameters = [SweepParameter.parse(p) for p in PARAMETERS]
    assert header == sweep_columns(parameters)
    assert [row[:3] for row in rows] == [["0", "0.3", "0"], ["1", "0.3", "1"],
                                         ["2", "0.6", "0"], ["3", "0.6", "1"]]
    # The cluster's workers flew exactly what this process flies for the same points.
    serial = run_sweep(grid_points(load_mission_text(HOP_YAML, "hop.yaml"), parameters),
                       serial=True)
    assert rows == [[_cell(row[column]) for column in header] for row in serial]
    assert all(row[header.index("completed")] == "True" for row in rows)


def _cell(value):
    return "" if value is None else str(value)
