"""Record a 1v1 fixed-wing dogfight as a Tacview ACMI file, read it back, draw its tracks.

The picture of docs/tacview.md. One episode (at most 30 s) of
``MAFixedwingDogfightEnv(team_size=1, damage_per_hit=0.006)`` is flown under
:class:`~pyflyt_like.envs.dogfight.scene_recorder.DogfightRecorder`; the env has no
scripted opponent of its own, so two small scripted pilots fly it in attitude hold
(mode 1): ``uav_1`` (blue) flies a steady gentle right turn holding its height, ``uav_0``
(red) chases it by pure pursuit (bank towards the bearing of the target, nose at its
elevation, throttle holding 12 m behind it). Everything drawn comes from the parsed
``.acmi`` file: the 3-D and top-down tracks, where hits happened (the target's position at
each hit event) and where the aircraft was shot down::

    python scripts/draw_acmi_tracks.py [--seed 0] [--acmi OUT.acmi] [--png OUT.png]
    python scripts/draw_acmi_tracks.py --from RECORDED.acmi --png OUT.png

``--from`` draws a file recorded elsewhere (e.g. the dogfight recipe's replay) instead of
flying one. Default outputs: ``docs/assets/tacview_tracks.png`` and ``dogfight.acmi`` in the current
folder. Needs matplotlib.
"""

from __future__ import annotations

import argparse
import io
import math
import time
from pathlib import Path

import numpy as np

from pyflyt_like.common.acmi import AcmiRecording, check_acmi_path, read_acmi
from pyflyt_like.common.atomic_files import check_file_destination, write_atomically
from pyflyt_like.envs import MAFixedwingDogfightEnv
from pyflyt_like.envs.dogfight.scene_recorder import DogfightRecorder

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PNG = ROOT / "docs" / "assets" / "tacview_tracks.png"
GRAVITY = 9.81  # m/s^2
TARGET_BANK = 0.15  # rad, the target's steady right turn (positive roll: right wing down)
TARGET_THROTTLE = 0.4
CHASE_GAIN = 3.0  # rad of bank per rad of bearing error
CHASE_DISTANCE = 12.0  # m, the pursuer's throttle holds the target this far ahead
LEAD_TIME = 0.3  # s, the pursuer aims where the target will be this much later
MAX_BANK = 1.0  # rad
DAMAGE_PER_HIT = 0.006  # 167 physics-step hits kill (the env's default 0.003: 334)


def coordinated_yaw_rate(roll: float, speed: float) -> float:
    """Body yaw rate [rad/s] of a coordinated turn at bank ``roll`` [rad] (positive: right
    wing down) and ``speed`` [m/s] (docs/fixedwing.md: ``-g tan(roll) cos(roll) / V``)."""
    return -GRAVITY * math.tan(roll) * math.cos(roll) / max(speed, 5.0)


def chase(env, shooter: int, target: int) -> np.ndarray:
    """Pure pursuit in mode 1: the normalised action of aircraft ``shooter``."""
    me, them = env.drones[shooter], env.drones[target]
    offset = them.state[3] + LEAD_TIME * them.world_velocity - me.state[3]
    bearing = math.atan2(offset[1], offset[0])  # ENU: counter-clockwise from east
    error = (bearing - me.state[1][2] + math.pi) % (2.0 * math.pi) - math.pi
    roll = -float(np.clip(CHASE_GAIN * error, -MAX_BANK, MAX_BANK))  # target left: bank left
    elevation = math.atan2(offset[2], math.hypot(offset[0], offset[1]))
    floor = 0.05 * max(0.0, 30.0 - me.state[3][2])  # climb away from the ground below 30 m
    nose_up = float(np.clip(elevation + floor, -0.3, 0.4))
    ahead = float(offset @ me.rotation_matrix[:, 0])
    throttle = float(np.clip(0.4 + 0.02 * (ahead - CHASE_DISTANCE), 0.1, 0.9))
    speed = float(np.linalg.norm(me.world_velocity))
    # Mode 1 setpoint: roll, pitch (PyBullet's: positive is nose down), yaw rate, throttle.
    return env.action_mappings[shooter].to_action(
        (roll, -nose_up, coordinated_yaw_rate(roll, speed), throttle))


def circle(env, index: int) -> np.ndarray:
    """A steady gentle right turn holding 60 m: the normalised action of ``index``."""
    drone = env.drones[index]
    nose_up = 0.03 * (60.0 - drone.state[3][2])
    speed = float(np.linalg.norm(drone.world_velocity))
    return env.action_mappings[index].to_action(
        (TARGET_BANK, -nose_up, coordinated_yaw_rate(TARGET_BANK, speed), TARGET_THROTTLE))


def record_episode(path: Path, seed: int) -> tuple[int, float]:
    """Fly and record one episode into ``path``; return (steps, seconds of wall time)."""
    env = DogfightRecorder(MAFixedwingDogfightEnv(team_size=1, max_duration_seconds=30.0,
                                                  damage_per_hit=DAMAGE_PER_HIT), path)
    try:
        env.reset(seed=seed)
        steps, start = 0, time.perf_counter()
        while env.agents:
            actions = {"uav_0": chase(env.unwrapped, 0, 1), "uav_1": circle(env.unwrapped, 1)}
            env.step({agent: actions[agent] for agent in env.agents})
            steps += 1
        return steps, time.perf_counter() - start
    finally:
        env.close()


def draw(recording: AcmiRecording, png: Path) -> dict[str, int]:
    """Draw the tracks of ``recording`` into ``png``; return counts of what was marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(12.0, 5.4), dpi=100)
    axes_3d = figure.add_subplot(1, 2, 1, projection="3d")
    axes_top = figure.add_subplot(1, 2, 2)
    tracks = {object_id: recording.enu_track(object_id) for object_id in recording.objects}
    for object_id, (_, positions, _) in tracks.items():
        properties = recording.objects[object_id]
        color = {"Red": "tab:red", "Blue": "tab:blue"}.get(properties.get("Color"), "k")
        x, y, z = positions.T
        axes_3d.plot(x, y, z, color=color, lw=1.2, label=properties["Name"])
        axes_top.plot(x, y, color=color, lw=1.2, label=properties["Name"])
        axes_3d.scatter(x[:1], y[:1], z[:1], color=color, marker="o", s=25)
        axes_top.scatter(x[:1], y[:1], color=color, marker="o", s=25)

    def where(object_id: int, moment: float) -> np.ndarray:
        times, positions, _ = tracks[object_id]
        return np.array([np.interp(moment, times, positions[:, k]) for k in range(3)])

    hits = [where(e.object_ids[1], e.time) for e in recording.events if e.kind == "Message"]
    kills = [where(e.object_ids[0], e.time) for e in recording.events
             if e.kind == "Destroyed"]
    for points, marker, color, label, size in (
            (hits, "x", "darkorange", "hit (target position)", 40),
            (kills, "*", "k", "shot down / crashed", 220)):
        if points:
            x, y, z = np.array(points).T
            axes_3d.scatter(x, y, z, color=color, marker=marker, s=size, label=label,
                            depthshade=False, zorder=3)
            axes_top.scatter(x, y, color=color, marker=marker, s=size, label=label, zorder=3)
    axes_3d.set(xlabel="x east [m]", ylabel="y north [m]", zlabel="z up [m]",
                title="3-D tracks (o: start)")
    axes_top.set(xlabel="x east [m]", ylabel="y north [m]", title="top-down",
                 aspect="equal")
    axes_top.grid(alpha=0.3)
    axes_top.legend(loc="best", fontsize=8)
    figure.suptitle(f"{recording.global_properties.get('Title', '')}: read back from the "
                    "ACMI file")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    write_atomically(png, lambda stream: stream.write(buffer.getvalue()), binary=True)
    return {"hits": len(hits), "destroyed": len(kills)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="episode seed (default: 0)")
    parser.add_argument("--acmi", type=Path, default=Path("dogfight.acmi"),
                        help="where the recording goes (default: ./dogfight.acmi)")
    parser.add_argument("--png", type=Path, default=DEFAULT_PNG,
                        help=f"the picture (default: {DEFAULT_PNG.relative_to(ROOT)})")
    parser.add_argument("--from", dest="recorded", type=Path, default=None,
                        help="draw this recorded .acmi file instead of flying an episode")
    args = parser.parse_args()
    # where the picture and the recording go, proved writable before anything is flown; a
    # file to draw, read before anything is drawn: one line and exit 2, not a traceback
    try:
        check_file_destination(args.png, ".png", "--png")
        if args.recorded is None:
            check_acmi_path(args.acmi, "--acmi")
        else:
            args.acmi = args.recorded
            recording = read_acmi(args.recorded)
    except (OSError, ValueError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")  # one line, as argparse's
    if args.recorded is None:
        steps, seconds = record_episode(args.acmi, args.seed)
        print(f"{steps} steps flown and recorded in {seconds:.2f} s")
        recording = read_acmi(args.acmi)
    marked = draw(recording, args.png)
    hit_count = sum(int(e.text.split(": ")[1].split()[0]) for e in recording.events
                    if e.kind == "Message")
    print(f"{recording.frames[-1][0]:.1f} s simulated; "
          f"{args.acmi}: {args.acmi.stat().st_size / 1024:.0f} KiB, "
          f"{len(recording.frames)} frames, {len(recording.events)} events "
          f"({marked['hits']} hit messages, {hit_count} physics-step hits, "
          f"{marked['destroyed']} destroyed); picture: {args.png}")
    for event in recording.events:
        if event.kind != "Message":
            print(f"  {event.time:6.2f} s  {event.kind}: {event.text}")


if __name__ == "__main__":
    main()
