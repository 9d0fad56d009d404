"""Running a mission: build the aviary, fly every vehicle's pilot, report the result."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.acmi import AcmiWriter, check_acmi_path
from pyflyt_like.common.atomic_files import FileWriteError
from pyflyt_like.common.validation import NumericalError

from ..core import Aviary
from . import report
from .flight_log import FlightLog
from .mission import Mission, MissionError
from .output_files import ReportError, check_output_folder
from .pilots import GuidancePilot, TrajectoryPilot
from .rocket_pilot import RocketPilot
from .video import VideoRecorder, check_video_path
from .vtol_pilot import QuadplanePilot

DEFAULT_MODELS = {"quadx": None, "multirotor": "crazyflie21", "fixedwing": None,
                  "quadplane": None, "rocket": None}
# Tacview's object types (tags) by vehicle type: the quadplane cruises on its wing.
ACMI_TYPES = {"quadx": "Air+Rotorcraft", "multirotor": "Air+Rotorcraft",
              "fixedwing": "Air+FixedWing", "quadplane": "Air+FixedWing",
              "rocket": "Weapon+Rocket"}
ACMI_COLORS = ("Blue", "Red", "Green", "Orange", "Violet", "Cyan", "Yellow")  # in turn


@dataclass
class VehicleResult:
    """How one vehicle did."""

    name: str
    type: str
    controller: str
    waypoints_total: int
    waypoints_reached: int
    completion_time: float | None
    rms_error: float
    max_error: float
    collisions: int
    crashed: bool
    # The onboard estimator's RMS errors against the truth (None without an estimator):
    # position [m] and velocity [m/s] (EKF only), attitude [deg].
    estimate_position_rms: float | None = None
    estimate_velocity_rms: float | None = None
    estimate_attitude_rms: float | None = None


class _EstimateErrors:
    """Squared errors of a drone's estimate against its truth, summed once per step."""

    def __init__(self, drone) -> None:
        self.drone = drone
        self.count = 0
        self.sums = np.zeros(3)  # position, velocity, attitude

    def record(self) -> None:
        estimate = self.drone.estimator.read()
        if not estimate["initialised"]:
            return
        drone = self.drone
        dot = min(abs(float(np.dot(np.asarray(drone.quaternion), estimate["quaternion"]))), 1.0)
        self.sums[2] += (2.0 * math.degrees(math.acos(dot))) ** 2
        if "position" in estimate:
            self.sums[0] += float(np.sum((estimate["position"] - drone.state[3]) ** 2))
            self.sums[1] += float(np.sum((estimate["velocity"] - drone.world_velocity) ** 2))
        self.count += 1

    def figures(self) -> dict[str, float | None]:
        if self.count == 0:
            return {}
        rms = np.sqrt(self.sums / self.count)
        has_position = "position" in self.drone.estimator.read()
        return {"estimate_position_rms": float(rms[0]) if has_position else None,
                "estimate_velocity_rms": float(rms[1]) if has_position else None,
                "estimate_attitude_rms": float(rms[2])}


def _record_estimate(log: FlightLog, drone) -> None:
    """Add the drone's onboard estimate to the row its pilot just logged: position [m] (EKF
    only) and Euler angles [rad]; NaN before the filter initialised, when its values are
    the reset state's rather than an estimate."""
    estimate = drone.estimator.read()
    if estimate["initialised"]:
        log.append_estimate(estimate.get("position"), estimate["euler"])
    else:
        log.append_estimate(None, None)


@dataclass
class MissionResult:
    """What :func:`run_mission` returns: per-vehicle results, logs and written files."""

    mission: str
    completed: bool
    duration: float
    vehicles: list[VehicleResult]
    logs: list[FlightLog]
    files: list[Path] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when every vehicle reached every waypoint without crashing, else 1."""
        return 0 if self.completed else 1

    def summary(self) -> dict[str, Any]:
        """The summary as plain data (what summary.json holds)."""
        return {"mission": self.mission, "completed": self.completed,
                "duration": self.duration, "vehicles": [vars(v).copy() for v in self.vehicles]}


def _pilot(spec, drone, mission: Mission):
    tolerance = spec.arrival_tolerance or mission.arrival_tolerance
    if spec.type == "fixedwing":
        return GuidancePilot(spec, drone, tolerance)
    if spec.type == "quadplane":
        return QuadplanePilot(spec, drone, tolerance)
    if spec.type == "rocket":
        return RocketPilot(spec, drone, tolerance)
    return TrajectoryPilot(spec, drone, tolerance)


def build_aviary(mission: Mission, gui: bool = False, seed: int = 0) -> Aviary:
    """An Aviary with the mission's vehicles at their start poses."""
    options = []
    for spec in mission.vehicles:
        option: dict[str, Any] = {}
        model = spec.model or DEFAULT_MODELS[spec.type]
        if model is not None:
            option["drone_model"] = model
        if spec.type == "multirotor":
            option["position_controller"] = spec.controller
        if mission.sensors is not None:
            option["sensors"] = mission.sensors
        if mission.estimator is not None:
            option["estimator"] = mission.estimator
            option["state_source"] = mission.state_source
        if mission.control_delay_steps:
            option["control_delay_steps"] = mission.control_delay_steps
        options.append(option)
    wind = mission.wind or {}
    try:
        return Aviary(start_pos=np.array([s.start_position for s in mission.vehicles]),
                      start_orn=np.array([s.start_orientation for s in mission.vehicles]),
                      drone_type=[s.type for s in mission.vehicles], drone_options=options,
                      wind_type=wind.get("type"), wind_options=wind.get("options"),
                      render=gui, physics_hz=mission.physics_hz, seed=seed)
    except (ValueError, TypeError, FileNotFoundError) as error:
        raise MissionError(f"{mission.source}: {error}") from None
    except KeyError as error:  # a model folder of another vehicle family
        raise MissionError(f"{mission.source}: a vehicle's model lacks the {error} section of "
                           "its type (is the model of another vehicle family?)") from None


def check_destinations(output_dir: str | Path | None = None,
                       video: str | Path | None = None, video_name: str = "video",
                       acmi: str | Path | None = None, acmi_name: str = "acmi") -> None:
    """Check, before flying, that the report, the video and the ACMI replay can be written
    where asked.

    Leaves nothing behind: each folder is tried by creating and removing a trial file
    there (permission bits pass root also where nothing can be created, e.g. ``/proc``).
    ``video_name`` and ``acmi_name`` are how the paths are called in messages.

    Raises:
        ReportError: the output folder is a file, not writable or cannot be created; the
            video's folder is missing or not writable (an ``OSError``).
        FileWriteError: the ACMI file's folder is missing or not writable (an ``OSError``).
        ValueError: the video path does not end in ``.mp4``, the ACMI path not in
            ``.acmi``, or either is a folder.
        ImportError: a video is asked for without the video extra installed.
    """
    if output_dir is not None:
        check_output_folder(output_dir)
    if video is not None:
        check_video_path(video, video_name)
    if acmi is not None:
        check_acmi_path(acmi, acmi_name)


@dataclass
class Flight:
    """A flown mission whose report is not written yet (see :func:`fly_mission`)."""

    mission: Mission
    result: MissionResult
    recorder: Any = None  # VideoRecorder with the frames, when a video was recorded
    crash_times: list[float | None] = field(default_factory=list)  # [s], per vehicle

    def write_report(self, output_dir: str | Path | None = None,
                     video: str | Path | None = None,
                     acmi: str | Path | None = None) -> list[Path]:
        """Write the report files into ``output_dir``, the video to ``video`` and the
        Tacview replay to ``acmi`` (each if given; see :func:`write_acmi`).

        The written paths are also appended to ``result.files``.

        Raises:
            ReportError: a file cannot be written (nothing half-written is left).
        """
        written: list[Path] = []
        if output_dir is not None:
            waypoints = [np.array([w.position for w in spec.waypoints])
                         for spec in self.mission.vehicles]
            written += report.write_outputs(self.result.logs, self.result.summary(),
                                            Path(output_dir), waypoints=waypoints)
            self.result.files += written
        if video is not None and self.recorder is not None:
            written.append(self.recorder.write(video))
            self.result.files.append(written[-1])
        if acmi is not None:
            written.append(write_acmi(acmi, self.mission, self.result, self.crash_times))
            self.result.files.append(written[-1])
        return written


def write_acmi(path: str | Path, mission: Mission, result: MissionResult,
               crash_times: list[float | None] | None = None) -> Path:
    """Write a flown mission as a Tacview replay (text ACMI 2.2, see docs/tacview.md).

    Every vehicle is an object (``Name`` its name, ``Type`` by its type as
    :data:`ACMI_TYPES`, colours in turn) with a frame per row of its log (the control
    rate), about the default reference point of :mod:`pyflyt_like.common.acmi`. A vehicle
    that reached its last waypoint gets an ``Event=Bookmark`` then; one that crashed an
    ``Event=Destroyed`` at ``crash_times[i]`` [s] and is removed.

    Raises:
        ReportError: the file cannot be written (nothing half-written is left).
    """
    crash_times = list(crash_times or [None] * len(result.logs))
    events = []  # (time, kind, vehicle index, text), written once their time has come
    for i, (spec, vehicle) in enumerate(zip(mission.vehicles, result.vehicles)):
        if vehicle.completion_time is not None:
            events.append((vehicle.completion_time, "Bookmark", i,
                           f"{spec.name} reached its last waypoint"))
        if crash_times[i] is not None:
            events.append((crash_times[i], "Destroyed", i, f"{spec.name} crashed"))
    events.sort(key=lambda event: event[0])
    tracks = [log.poses() for log in result.logs]
    rows = sorted((time, i, k) for i, (times, _, _) in enumerate(tracks)
                  for k, time in enumerate(times.tolist())
                  if crash_times[i] is None or time <= crash_times[i])
    try:
        with AcmiWriter(path, title=f"mission {mission.name}") as writer:
            for i, spec in enumerate(mission.vehicles):
                writer.add_object(i + 1, spec.name, ACMI_TYPES[spec.type],
                                  color=ACMI_COLORS[i % len(ACMI_COLORS)])
            for time, group in itertools.groupby(rows, key=lambda row: row[0]):
                frame = [(i, k) for _, i, k in group]
                writer.frame(time, [i + 1 for i, _ in frame],
                             [tracks[i][1][k] for i, k in frame],
                             [tracks[i][2][k] for i, k in frame])
                while events and events[0][0] <= time:
                    _, kind, i, text = events.pop(0)
                    writer.event(time, kind, [i + 1], text)
                    if kind == "Destroyed":
                        writer.remove(time, i + 1)
    except FileWriteError as error:
        failure = ReportError(str(error))  # the same message: "cannot write <path>: <reason>"
        failure.reason = error.reason
        raise failure from None
    return Path(path)


def run_mission(mission: Mission, output_dir: str | Path | None = None, gui: bool = False,
                seed: int = 0, progress: Callable[[float, float], None] | None = None,
                video: str | Path | None = None,
                acmi: str | Path | None = None) -> MissionResult:
    """Fly ``mission`` headless (or with ``gui``); write reports to ``output_dir`` if given.

    Where the report and the video go is checked before flying (:func:`check_destinations`).

    Args:
        mission: a validated mission.
        output_dir: folder for log_<vehicle>.csv, summary.json and PNG plots; None: none.
        gui: watch it in PyBullet's window.
        seed: random seed of the aviary.
        progress: called as ``progress(elapsed_s, limit_s)`` after every step.
        video: write a chase-camera MP4 of the first vehicle here (needs the video extra).
        acmi: write a Tacview replay of every vehicle here (``.acmi``, see
            :func:`write_acmi`).

    Raises:
        MissionError: the mission cannot be flown as given (e.g. its duration limit is
            shorter than the time its trajectories need).
        ReportError, ValueError, ImportError: see :func:`check_destinations`; ReportError
            also when writing fails after the flight.
    """
    check_destinations(output_dir, video, acmi=acmi)
    flight = fly_mission(mission, gui=gui, seed=seed, progress=progress,
                         record_video=video is not None)
    flight.write_report(output_dir, video, acmi)
    return flight.result


def fly_mission(mission: Mission, gui: bool = False, seed: int = 0,
                progress: Callable[[float, float], None] | None = None,
                record_video: bool = False, step_recorder: Any = None) -> Flight:
    """Fly ``mission`` and return the :class:`Flight`, writing nothing.

    ``record_video``: capture chase-camera frames of the first vehicle (video extra), to be
    written by :meth:`Flight.write_report`. ``step_recorder``: an object with ``begin(aviary)``,
    called once the aviary is built, and ``record()``, called after every step (e.g. the
    viz extra's ``MissionRecorder``, which the command line passes in: this layer may not
    import it). Other arguments and errors as :func:`run_mission`.
    """
    with build_aviary(mission, gui=gui, seed=seed) as aviary:
        try:
            pilots = [_pilot(spec, drone, mission) for spec, drone in
                      zip(mission.vehicles, aviary.drones)]
        except (MissionError, ValueError) as error:
            raise MissionError(f"{mission.source}: {error}") from None
        needed = max(p.duration for p in pilots)
        if needed > mission.duration_limit:
            raise MissionError(f"{mission.source}: duration_limit {mission.duration_limit:g} s "
                               f"is shorter than the {math.ceil(needed * 100) / 100:.2f} s the "
                               "waypoints need at the requested speeds")
        crashed = [False] * len(pilots)
        crash_times: list[float | None] = [None] * len(pilots)
        collisions = [0] * len(pilots)
        touching = [False] * len(pilots)
        # A vehicle starting on the ground may touch it until it first lifts off; after
        # that (or from the start, when spawned in the air) any contact is a crash.
        airborne = [False] * len(pilots)
        ids = [d.Id for d in aviary.drones]
        estimates = [_EstimateErrors(d) if getattr(d, "estimator", None) is not None else None
                     for d in aviary.drones]
        for pilot, estimate in zip(pilots, estimates):
            if estimate is not None:
                pilot.log.start_estimates()  # the estimate columns, beside the truth's
        recorder = None
        if record_video:
            recorder = VideoRecorder(aviary, aviary.drones[0])
        if step_recorder is not None:
            step_recorder.begin(aviary)
        time = 0.0
        while time < mission.duration_limit and not all(
                p.done or c for p, c in zip(pilots, crashed)):
            for pilot, dead in zip(pilots, crashed):
                if not dead:
                    pilot.command(time)
            try:
                aviary.step()
            except NumericalError:
                crashed = [True] * len(pilots)
                crash_times = [time if t is None else t for t in crash_times]
                break
            time = aviary.elapsed_time
            for i, pilot in enumerate(pilots):
                pilot.record(time)
                if estimates[i] is not None:
                    _record_estimate(pilot.log, aviary.drones[i])
                if estimates[i] is not None and not crashed[i]:
                    estimates[i].record()
                contact = bool(aviary.contact_array[ids[i]].any())
                # A landing pilot may touch down; any other contact after lift-off is a crash.
                if contact and not touching[i] and airborne[i] and not pilot.touchdown_allowed:
                    collisions[i] += 1
                    crashed[i] = True
                    if crash_times[i] is None:  # the first contact, not a bounce
                        crash_times[i] = time
                airborne[i] = airborne[i] or not contact
                touching[i] = contact
            if recorder is not None:
                recorder.capture()
            if step_recorder is not None:
                step_recorder.record()
            if progress is not None:
                progress(time, mission.duration_limit)
        results = []
        for pilot, spec, crash, hits, estimate in zip(pilots, mission.vehicles, crashed,
                                                      collisions, estimates):
            errors = np.array(pilot.log.errors) if pilot.log.errors else np.zeros(1)
            estimate_figures = {} if estimate is None else estimate.figures()
            results.append(VehicleResult(
                name=spec.name, type=spec.type, controller=spec.controller,
                waypoints_total=len(spec.waypoints), waypoints_reached=pilot.reached,
                completion_time=pilot.completion_time,
                rms_error=float(np.sqrt(np.mean(errors**2))), max_error=float(errors.max()),
                collisions=hits, crashed=crash, **estimate_figures))
        completed = all(r.completion_time is not None and not r.crashed for r in results)
        result = MissionResult(mission.name, completed, time, results, [p.log for p in pilots])
    return Flight(mission, result, recorder, crash_times)
