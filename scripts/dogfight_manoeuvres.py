"""What a dogfight policy flies differently from its teacher: statistics and replays.

Flies ``--episodes`` episodes of the PettingZoo scene (``MAFixedwingDogfightEnv`` at its
default options, sides alternated, as ``scripts/evaluate_dogfight.py``) twice against the
default scripted pilot (``PursuitPilot``): once with POLICY, once with the teacher the
recipe imitates (``PursuitPilot(follow_distance=20)``), on the same seeds. Every step of
side A is recorded with what the teacher would have commanded in the same state, and
summarised per pilot:

* airspeed percentiles [m/s], and the share of time below the teacher's 13 m/s floor;
* the share of time at idle throttle (< 0.05), and, while closing on the nearest enemy
  within 20 m (closing faster than 2 m/s), the throttle commanded against the teacher's
  label for those same states;
* the share of time with a guns solution (nearest enemy within the lethal distance and
  cone);
* the RMS difference between the pilot's setpoints and the teacher's, per channel (roll,
  pitch [rad], yaw rate [rad/s], throttle), which is 0 for the teacher itself.

The first episode of each is also recorded as a Tacview ACMI replay, and the picture is
drawn from the two replays read back: top-down tracks and airspeed against time::

    python scripts/dogfight_manoeuvres.py runs/dogfight.pt --episodes 50 --seed 0 \\
        --json manoeuvres.json --png manoeuvres.png --acmi-folder replays

Needs the ``rl`` extra (torch) and matplotlib for ``--png``.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from evaluate_dogfight import UserError, check_file, load_policy, policy_pilot

from pyflyt_like.common.command_line import MAX_SEED, OneLineParser, int_in
from pyflyt_like.envs.dogfight.manoeuvres import MIN_AIRSPEED

TEACHER_FOLLOW_DISTANCE = 20.0  # m, the recipe's teacher (examples/train_dogfight.py)
MAX_EPISODES = 100_000


def parse(argv: list[str] | None) -> tuple[OneLineParser, argparse.Namespace]:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", type=Path, metavar="POLICY",
                        help="the 1v1 PPOPolicy checkpoint (.pt) to analyse")
    parser.add_argument("--episodes", type=int_in(1, MAX_EPISODES), default=50,
                        help="episodes per pilot (default: 50)")
    parser.add_argument("--seed", type=int_in(0, MAX_SEED - MAX_EPISODES), default=0,
                        help="episode k is reset with seed + k (default: 0)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write the statistics to this .json file")
    parser.add_argument("--png", type=Path, default=None, metavar="FILE",
                        help="draw the first episode's two replays into this .png file")
    parser.add_argument("--acmi-folder", type=Path, default=None, metavar="FOLDER",
                        help="keep the replays there (policy.acmi, teacher.acmi)")
    return parser, parser.parse_args(argv)


def draw(replays: dict[str, Path], png: Path) -> None:
    """Top-down tracks and airspeed against time of each replay, one row per pilot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pyflyt_like.common.acmi import read_acmi
    from pyflyt_like.common.atomic_files import write_atomically

    figure, axes = plt.subplots(len(replays), 2, figsize=(11.0, 4.6 * len(replays)),
                                dpi=100, squeeze=False)
    for (name, path), (top, speed) in zip(replays.items(), axes):
        recording = read_acmi(path)
        destroyed = {event.object_ids[0]: event.time for event in recording.events
                     if event.kind == "Destroyed"}
        for object_id, properties in recording.objects.items():
            color = {"Red": "tab:red", "Blue": "tab:blue"}.get(properties.get("Color"), "k")
            label = f"{name} (side A)" if color == "tab:red" else "scripted pilot"
            times, positions, _ = recording.enu_track(object_id)
            flying = times < destroyed.get(object_id, np.inf)  # not its fall from the kill on
            times, positions = times[flying], positions[flying]
            top.plot(positions[:, 0], positions[:, 1], color=color, lw=1.2, label=label)
            top.scatter(positions[:1, 0], positions[:1, 1], color=color, marker="o", s=25)
            if len(times) > 1:
                airspeed = np.linalg.norm(np.diff(positions, axis=0), axis=1) / np.diff(times)
                speed.plot(times[1:], airspeed, color=color, lw=1.2, label=label)
        for moment in destroyed.values():
            speed.axvline(moment, color="k", ls=":", lw=1.0)
        speed.axhline(MIN_AIRSPEED, color="gray", ls="--", lw=0.8,
                      label="the teacher's minimum airspeed")
        top.set(xlabel="x east [m]", ylabel="y north [m]", aspect="equal",
                title=f"{name}: top-down (o: start)")
        speed.set(xlabel="time [s]", ylabel="ground speed [m/s]",
                  title=f"{name}: speed (dotted: shot down)")
        for axis in (top, speed):
            axis.grid(alpha=0.3)
            axis.legend(fontsize=8, loc="best")
    figure.suptitle("The same first episode, read back from the ACMI replays")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    write_atomically(png, lambda stream: stream.write(buffer.getvalue()), binary=True)


def analyse(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Fly both pilots, write their first episodes' replays into ``folder`` and return the
    report (UserError on a bad checkpoint)."""
    check_file(args.policy, "POLICY")
    policy = load_policy(args.policy, "POLICY")
    import torch

    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.manoeuvres import ManoeuvreRecord, recording_pilot
    from pyflyt_like.envs.dogfight.matches import scene_matches

    torch.set_num_threads(1)  # a handful of observations per call: one thread is fastest
    teacher = lambda env: PursuitPilot(env, follow_distance=TEACHER_FOLLOW_DISTANCE)  # noqa: E731
    pilots = {"policy": policy_pilot(policy, "POLICY", args.policy), "teacher": teacher}
    report: dict[str, Any] = {"policy": str(args.policy), "episodes": args.episodes,
                              "seed": args.seed, "opponent": "scripted"}
    for name, pilot in pilots.items():
        record = ManoeuvreRecord()
        result = scene_matches(recording_pilot(pilot, teacher, record), PursuitPilot,
                               episodes=args.episodes, seed=args.seed,
                               record_first=folder / f"{name}.acmi")
        report[name] = {**result.as_dict(), **record.statistics()}
        print(name, json.dumps(report[name]))
    return report


def main(argv: list[str] | None = None) -> int:
    parser, args = parse(argv)
    try:
        for path, suffix, name in ((args.json, ".json", "--json"), (args.png, ".png", "--png")):
            if path is not None:  # proved writable before the episodes are flown
                from pyflyt_like.common.atomic_files import check_file_destination

                try:
                    check_file_destination(path, suffix, name)
                except (OSError, ValueError) as error:
                    raise UserError(str(error)) from None
        with tempfile.TemporaryDirectory() as temporary:
            folder = args.acmi_folder or Path(temporary)
            if not folder.is_dir():
                raise UserError(f"--acmi-folder {folder}: no such folder")
            report = analyse(args, folder)
            if args.png is not None:
                draw({"policy": folder / "policy.acmi", "teacher": folder / "teacher.acmi"},
                     args.png)
    except UserError as error:
        line = " ".join(str(error).split())
        parser.exit(2, f"{parser.prog}: error: {line}\n")
    if args.json is not None:
        from pyflyt_like.common.atomic_files import write_atomically

        write_atomically(args.json, lambda stream: json.dump(report, stream, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
