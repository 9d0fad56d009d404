"""Rerun recordings (the viz extra), written headless and read back with Rerun's own chunk
API: the poses equal the flown ones, the replay of a flight log equals its rows."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.extras import require_extra

rr = require_extra("viz", "rerun")

from rerun.chunk import RrdReader  # noqa: E402

from pyflyt_like import cli  # noqa: E402
from pyflyt_like.integrations.rerun import (  # noqa: E402
    AviaryRecorder,
    BatchedRecorder,
    RerunParallelRecorder,
    RerunRecorder,
    load_vehicle_shapes,
    read_rrd,
)
from pyflyt_like.integrations.rerun.columns import euler_to_quaternions  # noqa: E402
from pyflyt_like.missions import runner as runner_module  # noqa: E402

TWO_VEHICLES = """
name: pair
duration_limit: 5
arrival_tolerance: 0.05
vehicles:
  - {name: cf, type: multirotor, model: crazyflie21, start: {position: [0, 0, 1]}, speed: 1.0,
     waypoints: [[0.2, 0, 1]]}
  - {name: qx, type: quadx, start: {position: [1, 0, 1]}, speed: 1.0,
     waypoints: [[1, 0.3, 1.2]]}
"""
CRASH = """
name: crash
duration_limit: 20
vehicles:
  - {name: q, type: quadx, start: {position: [0, 0, 1]}, speed: 1.0,
     waypoints: [[1, 0, -0.5], [2, 0, 1]]}
"""
FLOAT32 = 1e-6  # Rerun keeps translations and quaternions as float32: relative precision


def same_rotation(a: np.ndarray, b: np.ndarray) -> float:
    """Largest angle [rad] between rows of two (n, 4) quaternion arrays (q and -q agree)."""
    dots = np.abs(np.einsum("ni,ni->n", a, b)).clip(max=1.0)
    return float(np.max(2 * np.arccos(dots)))


def fly(capfd, tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    mission = tmp_path / "mission.yaml"
    mission.write_text(text)
    code = cli.main(["fly", "--no-progress", str(mission), "--output", str(tmp_path / "out"),
                     *args])
    out, err = capfd.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def flown_pair(tmp_path_factory):
    """The pair mission flown once with --rerun: (folder, recording entities)."""
    tmp_path = tmp_path_factory.mktemp("pair")
    mission = tmp_path / "mission.yaml"
    mission.write_text(TWO_VEHICLES)
    recording = tmp_path / "pair.rrd"
    code = cli.main(["fly", "--no-progress", str(mission), "--output", str(tmp_path / "out"),
                     "--rerun", str(recording)])
    assert code == 0
    return tmp_path, read_rrd(recording)


def test_mission_poses_equal_the_flown_ones(flown_pair):
    folder, entities = flown_pair
    for name in ("cf", "qx"):
        log = np.loadtxt(folder / "out" / f"log_{name}.csv", delimiter=",", skiprows=1)
        pose = entities[f"world/{name}"]
        np.testing.assert_allclose(pose.times, log[:, 0], atol=1e-9)  # one pose per log row
        np.testing.assert_allclose(pose.array("Transform3D:translation"), log[:, 10:13],
                                   rtol=FLOAT32, atol=FLOAT32)
        quaternions = pose.array("Transform3D:quaternion")
        assert same_rotation(quaternions, euler_to_quaternions(log[:, 4:7])) < 1e-3
        assert entities[f"world/{name}/body/cylinders"].static  # the rotors of its URDF


def test_mission_series_setpoints_waypoints_and_events(flown_pair):
    folder, entities = flown_pair
    header = (folder / "out" / "log_qx.csv").read_text().splitlines()[0].split(",")
    log = np.loadtxt(folder / "out" / "log_qx.csv", delimiter=",", skiprows=1)
    x = entities["plots/m/qx/x"]
    assert x.static["SeriesLines:names"] == ["x", "sp_x", "x_ref"]
    np.testing.assert_array_equal(x.array("Scalars:scalars"),
                                  log[:, [header.index(c) for c in ("x", "sp_x", "x_ref")]])
    motors = entities["plots/throttle_0_1/qx/actuators"]
    assert motors.static["SeriesLines:names"] == [f"motor{i}" for i in range(4)]
    waypoints = entities["world/waypoints/qx"].static
    np.testing.assert_allclose(waypoints["Points3D:positions"], [[1, 0.3, 1.2]])
    assert entities["world/paths/cf/reference"].static["LineStrips3D:strips"]
    texts = [t[0] for t in entities["events"].columns["TextLog:text"]]
    assert sorted(texts) == ["cf reached its last waypoint", "qx reached its last waypoint"]


def test_the_layout_is_in_the_file(flown_pair):
    folder, _ = flown_pair
    assert len(RrdReader(folder / "pair.rrd").blueprints()) == 1


def test_replay_of_a_csv_equals_its_rows(flown_pair, capfd):
    folder, _ = flown_pair
    csv = folder / "out" / "log_cf.csv"
    target = folder / "replay.rrd"
    assert cli.main(["replay", str(csv), "--rerun", str(target)]) == 0
    assert "replayed 1 flight log into" in capfd.readouterr().out
    header = csv.read_text().splitlines()[0].split(",")
    rows = np.loadtxt(csv, delimiter=",", skiprows=1)
    entities = read_rrd(target)
    seen = set()
    for path, data in entities.items():
        if path.startswith("plots/") and data.times.size:
            names = data.static["SeriesLines:names"]
            np.testing.assert_allclose(data.times, rows[:, 0], atol=1e-9)  # whole ns
            np.testing.assert_array_equal(data.array("Scalars:scalars"),
                                          rows[:, [header.index(n) for n in names]])
            seen.update(names)
    assert seen == set(header) - {"time"}  # every column, each once
    pose = entities["world/cf"]
    np.testing.assert_allclose(pose.array("Transform3D:translation"), rows[:, 10:13],
                               rtol=FLOAT32, atol=FLOAT32)
    assert same_rotation(pose.array("Transform3D:quaternion"),
                         euler_to_quaternions(rows[:, 4:7])) < 1e-3


def test_a_crash_is_an_error_event_and_a_red_point(tmp_path, capfd):
    recording = tmp_path / "crash.rrd"
    code, out, _ = fly(capfd, tmp_path, CRASH, "--rerun", str(recording))
    assert code == 1 and "crashed" in out
    entities = read_rrd(recording)
    events = entities["events"]
    texts = [t[0] for t in events.columns["TextLog:text"]]
    assert "q crashed" in texts
    assert entities["world/crashes/q"].columns["Points3D:positions"]


@pytest.mark.parametrize("case", ["suffix", "folder missing"])
def test_bad_rerun_paths_exit_2_with_one_line_before_flying(tmp_path, capfd, monkeypatch,
                                                            case):
    def forbidden(*args, **kwargs):
        raise AssertionError("flown although refused")

    monkeypatch.setattr(runner_module, "build_aviary", forbidden)
    target = tmp_path / ("x.txt" if case == "suffix" else "nope/x.rrd")
    code, out, err = fly(capfd, tmp_path, TWO_VEHICLES, "--rerun", str(target))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err
    assert re.search(r"--rerun (must name an \.rrd file|.*does not exist)", lines[0]), lines


def test_no_viewer_running_exits_2(tmp_path, capfd, monkeypatch):
    from pyflyt_like.integrations.rerun import _sdk

    monkeypatch.setattr(_sdk, "DEFAULT_VIEWER_URL", "rerun+http://127.0.0.1:9/proxy")
    from pyflyt_like.integrations.rerun import mission_recorder

    monkeypatch.setattr(mission_recorder.MissionRecorder.__init__, "__kwdefaults__",
                        {"name": "destination", "url": "rerun+http://127.0.0.1:9/proxy"})
    code, _, err = fly(capfd, tmp_path, TWO_VEHICLES, "--rerun")
    assert code == 2 and "no Rerun viewer is running" in err and len(err.splitlines()) == 1


def test_aviary_recorder_poses_wind_and_contacts(tmp_path):
    from pyflyt_like.core import Aviary

    path = tmp_path / "aviary.rrd"
    with Aviary(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), np.zeros((2, 3)),
                wind_type="constant", wind_options={"velocity": [1.0, 0.5, 0.0]},
                seed=0) as aviary, AviaryRecorder(aviary, path, names=["up", "ground"],
                                                  flush_every=7) as recorder:
        aviary.set_mode(7)
        aviary.set_setpoint(0, np.array([0.0, 0.0, 0.0, 1.2]))
        flown = []
        for _ in range(30):
            recorder.step()
            flown.append((aviary.elapsed_time, aviary.state(0)[3], aviary.state(0)[1]))
    entities = read_rrd(path)
    pose = entities["world/up"]
    np.testing.assert_allclose(pose.times, [t for t, _, _ in flown], atol=1e-9)
    np.testing.assert_allclose(pose.array("Transform3D:translation"),
                               [p for _, p, _ in flown], rtol=FLOAT32, atol=FLOAT32)
    assert same_rotation(pose.array("Transform3D:quaternion"),
                         euler_to_quaternions(np.array([e for _, _, e in flown]))) < 1e-3
    wind = entities["plots/m_s/up/wind"].array("Scalars:scalars")
    np.testing.assert_allclose(wind, np.tile([1.0, 0.5, 0.0], (30, 1)))
    assert entities["plots/command/up/setpoint"].array("Scalars:scalars").shape == (30, 4)
    texts = [t[0] for t in entities["events"].columns["TextLog:text"]]
    assert "ground touched another body" in texts


def test_gymnasium_wrapper_records_each_episode(tmp_path):
    import gymnasium

    import pyflyt_like.envs  # noqa: F401  (registers the ids)

    env = RerunRecorder(gymnasium.make("pyflyt_like/QuadX-Hover-v0", max_duration_seconds=0.5),
                        tmp_path / "hover_{episode}.rrd")
    rewards = []
    for episode in range(2):
        env.reset(seed=episode)
        done, total = False, []
        while not done:
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            total.append(reward)
            done = terminated or truncated
        rewards.append(total)
    env.close()
    assert env.written == [tmp_path / "hover_0.rrd", tmp_path / "hover_1.rrd"]
    for path, expected in zip(env.written, rewards):
        entities = read_rrd(path)
        np.testing.assert_allclose(
            entities["plots/reward/agent/reward"].array("Scalars:scalars")[:, 0], expected)
        assert len(entities["world/agent"].times) == len(expected) + 1  # the reset too


def test_pettingzoo_wrapper_records_every_agent(tmp_path):
    from pyflyt_like.envs.quadx.ma_hover import MAQuadXHoverEnv

    env = RerunParallelRecorder(MAQuadXHoverEnv(), tmp_path / "scene.rrd")
    env.reset(seed=0)
    for _ in range(5):
        env.step({agent: env.action_space(agent).sample() for agent in env.agents})
    env.close()
    entities = read_rrd(tmp_path / "scene.rrd")
    for agent in env.possible_agents:
        assert len(entities[f"world/{agent}"].times) == 6
        assert len(entities[f"plots/reward/{agent}/reward"].times) == 5


def test_batched_worlds_side_by_side_in_bulk(tmp_path, monkeypatch):
    from pyflyt_like.batch import BatchedAviary

    engine = BatchedAviary(n_worlds=6, n_drones=2, mode=7, seed=0)
    calls = []
    real = rr.RecordingStream.send_columns

    def counting(self, entity, *args, **kwargs):
        calls.append(entity)
        return real(self, entity, *args, **kwargs)

    monkeypatch.setattr(rr.RecordingStream, "send_columns", counting)
    path = tmp_path / "batch.rrd"
    positions, quaternions = [], []
    with BatchedRecorder(engine, path, worlds=[1, 4], spacing=5.0, flush_every=40) as recorder:
        for _ in range(60):
            engine.step(2)
            recorder.record()
            positions.append(engine.pos.copy())
            quaternions.append(engine.quat.copy())
    # 2 worlds x (2 drones + 1 wind) entities, 2 batches: 12 calls for 60 records.
    assert len(calls) == 12
    entities = read_rrd(path)
    np.testing.assert_allclose(entities["batch/world_4"].static["Transform3D:translation"],
                               [[5.0, 0.0, 0.0]])
    for world in (1, 4):
        for drone in (0, 1):
            pose = entities[f"batch/world_{world}/drone_{drone}"]
            np.testing.assert_allclose(pose.times, np.arange(1, 61) * 2 * engine.dt,
                                       atol=1e-9)
            np.testing.assert_allclose(pose.array("Transform3D:translation"),
                                       np.array(positions)[:, world, drone],
                                       rtol=FLOAT32, atol=FLOAT32)
            assert same_rotation(pose.array("Transform3D:quaternion"),
                                 np.array(quaternions)[:, world, drone]) < 1e-3
    assert "batch/world_0/drone_0" not in entities


def test_urdf_geometry_counts_every_visual():
    from pyflyt_like.common.loading import MODELS_DIR

    shapes = load_vehicle_shapes(MODELS_DIR / "vehicles" / "cf2x" / "cf2x.urdf")
    assert len(shapes.boxes) + len(shapes.cylinders) + len(shapes.spheres) == 7
    assert not shapes.skipped and 0.02 < shapes.radius < 0.5


def test_bad_arguments_name_themselves(tmp_path):
    from pyflyt_like.core import Aviary

    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), seed=0) as aviary:
        with pytest.raises(ValueError, match="names must be 1 distinct names"):
            AviaryRecorder(aviary, tmp_path / "a.rrd", names=["a", "b"])
        with pytest.raises(ValueError, match=r"must name an \.rrd file"):
            AviaryRecorder(aviary, tmp_path / "a.csv")
        with pytest.raises(TypeError, match="aviary must be a pyflyt_like Aviary"):
            AviaryRecorder(object(), tmp_path / "a.rrd")
    assert not list(tmp_path.iterdir())  # nothing written
