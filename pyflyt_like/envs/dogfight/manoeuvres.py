"""How a dogfight pilot flies, measured against a reference pilot on the same states.

:func:`recording_pilot` wraps a pilot factory (:mod:`.matches`) so that every step it
flies also records the observations, its setpoints and the setpoints a *reference* pilot
(e.g. the teacher a policy imitated) would have commanded in those same states;
:func:`manoeuvre_statistics` summarises such a record: how fast and with how much
throttle the pilot flies, what it does while closing on its target, how often it holds a
guns solution, and how far its commands are from the reference's. Reading the states
from the observations alone, it works on either engine. For example::

    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.manoeuvres import ManoeuvreRecord, recording_pilot
    from pyflyt_like.envs.dogfight.matches import scene_matches

    record = ManoeuvreRecord()
    teacher = lambda env: PursuitPilot(env, follow_distance=20.0)
    scene_matches(recording_pilot(lambda env: PursuitPilot(env), teacher, record),
                  PursuitPilot, episodes=2, seed=0)
    record.statistics()["idle_throttle_share"]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .matches import Pilot, PilotFactory
from .options import ObservationLayout
from .pursuit_pilot import MIN_AIRSPEED, PursuitPilot

IDLE_THROTTLE = 0.05  # throttle under which an engine counts as at idle
CLOSING_RANGE = 20.0  # m: "closing on the target" is within this range ...
CLOSING_SPEED = 2.0  # m/s: ... and closing faster than this
CHANNELS = ("roll", "pitch", "yaw_rate", "throttle")  # the attitude-hold setpoints


@dataclass
class ManoeuvreRecord:
    """What :func:`recording_pilot` saw, step by step, and the scene's geometry.

    Attributes:
        steps: per recorded call, (observations (N, obs), the pilot's setpoints (N, k),
            the reference's setpoints (N, k)).
        layout: the observation layout (:class:`.options.ObservationLayout`), set by the
            env the pilot is made for.
        lethal_distance: the guns' range [m], from that env.
        lethal_angle: the guns' cone half-angle [rad], from that env.
    """

    steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    layout: ObservationLayout | None = None
    lethal_distance: float = 0.0
    lethal_angle: float = 0.0

    def statistics(self) -> dict[str, Any]:
        """:func:`manoeuvre_statistics` of this record (ValueError if it is empty)."""
        return manoeuvre_statistics(self)


def recording_pilot(pilot: PilotFactory, reference: PilotFactory,
                    record: ManoeuvreRecord) -> PilotFactory:
    """A pilot factory that flies ``pilot``'s pilot and records into ``record``.

    Args:
        pilot: the factory of the pilot to fly and measure.
        reference: the factory of the pilot whose commands are asked for (and not flown)
            on the same observations.
        record: where each step is appended.

    The env must be a fixed-wing dogfight scene or its batched twin in attitude hold
    (flight mode 1), whose action is (roll, pitch, yaw rate, throttle) setpoints.
    """
    def factory(env: Any) -> Pilot:
        layout_source = PursuitPilot(env)  # checks the env's options and reads its layout
        if layout_source.flight_mode != 1:
            raise ValueError("recording_pilot needs flight_mode 1 (attitude-hold setpoints), "
                             f"got flight_mode={layout_source.flight_mode}")
        record.layout = layout_source.layout
        record.lethal_distance = layout_source.lethal_distance
        record.lethal_angle = layout_source.lethal_angle
        flying, asked = pilot(env), reference(env)
        mapping = layout_source.mapping

        def fly(observations: np.ndarray) -> np.ndarray:
            actions = np.asarray(flying(observations), dtype=np.float64)
            record.steps.append((np.array(observations, dtype=np.float64),
                                 mapping.to_setpoint(actions),
                                 mapping.to_setpoint(np.asarray(asked(observations)))))
            return actions
        return fly
    return factory


def manoeuvre_statistics(record: ManoeuvreRecord) -> dict[str, Any]:
    """Summary of a :class:`ManoeuvreRecord`, over every recorded aircraft-step.

    Returns:
        ``aircraft_steps``; ``airspeed_percentiles_10_50_90`` [m/s] and
        ``below_min_airspeed_share`` (slower than :data:`MIN_AIRSPEED`);
        ``idle_throttle_share`` (the engine's throttle now under :data:`IDLE_THROTTLE`);
        ``closing_share``, the share of steps closing on the nearest enemy in play (within
        :data:`CLOSING_RANGE`, faster than :data:`CLOSING_SPEED`), and on those steps
        ``closing_throttle_command`` (mean commanded throttle), ``closing_reference_throttle``
        (the reference's, same states) and ``closing_idle_share`` (commands at idle), None
        without such steps; ``guns_solution_share`` (nearest enemy within the lethal
        distance and cone); ``setpoint_rms_difference`` to the reference per channel of
        :data:`CHANNELS` [rad, rad, rad/s, throttle].

    Raises:
        ValueError: nothing was recorded.
    """
    if not record.steps:
        raise ValueError("the record is empty: fly the recording pilot first")
    layout = record.layout
    observations = np.concatenate([step[0] for step in record.steps])
    setpoints = np.concatenate([step[1] for step in record.steps])
    reference = np.concatenate([step[2] for step in record.steps])
    airspeed = np.linalg.norm(observations[:, layout.velocity], axis=1)
    blocks = layout.other_blocks(observations)
    position, velocity = blocks[:, :, 0:3], blocks[:, :, 3:6]
    distance = np.linalg.norm(position, axis=2)
    enemy = (blocks[:, :, -1] < 0.5) & (blocks[:, :, -2] > 0.0)
    nearest = np.argmin(np.where(enemy, distance, np.inf), axis=1)
    rows = np.arange(len(observations))
    engaged = enemy[rows, nearest]
    target_distance = np.maximum(distance[rows, nearest], 1e-9)
    target_position = position[rows, nearest]
    off_nose = np.arccos(np.clip(target_position[:, 0] / target_distance, -1.0, 1.0))
    closing_speed = -np.einsum("nj,nj->n", target_position,
                               velocity[rows, nearest]) / target_distance
    closing = engaged & (target_distance < CLOSING_RANGE) & (closing_speed > CLOSING_SPEED)
    guns = engaged & (target_distance < record.lethal_distance) & (
        off_nose < record.lethal_angle)
    rms = np.sqrt(np.mean((setpoints - reference) ** 2, axis=0))
    return {
        "aircraft_steps": int(len(observations)),
        "airspeed_percentiles_10_50_90": [float(v) for v in
                                          np.percentile(airspeed, (10, 50, 90))],
        "below_min_airspeed_share": float(np.mean(airspeed < MIN_AIRSPEED)),
        "idle_throttle_share": float(np.mean(observations[:, layout.throttle]
                                             < IDLE_THROTTLE)),
        "closing_share": float(np.mean(closing)),
        "closing_throttle_command": _mean(setpoints[closing, 3]),
        "closing_reference_throttle": _mean(reference[closing, 3]),
        "closing_idle_share": _mean(setpoints[closing, 3] < IDLE_THROTTLE),
        "guns_solution_share": float(np.mean(guns)),
        "setpoint_rms_difference": dict(zip(CHANNELS, (float(v) for v in rms))),
    }


def _mean(values: np.ndarray) -> float | None:
    return float(np.mean(values)) if values.size else None
