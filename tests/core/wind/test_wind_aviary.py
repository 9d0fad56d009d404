"""Built-in wind fields inside the Aviary: drag drift, positions and time, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions.boring_bodies import AIR_DENSITY
from pyflyt_like.core.wind import WIND_FIELDS, ConstantWind, DrydenWind

WIND_SPEED = 2.0  # m/s along +x


def hovering(wind_type, wind_options, start_pos=((0.0, 0.0, 5.0),), **kwargs) -> Aviary:
    """An aviary whose QuadX(s) hold equal hover motor commands (mode -1, no motor noise)."""
    start_pos = np.array(start_pos, dtype=float)
    aviary = Aviary(start_pos=start_pos, start_orn=np.zeros((len(start_pos), 3)),
                    wind_type=wind_type, wind_options=wind_options,
                    drone_options=dict(noise=0.0), seed=0, **kwargs)
    aviary.set_mode(-1)
    for i, drone in enumerate(aviary.drones):
        aviary.set_setpoint(i, [drone.hover_throttle] * 4)
    return aviary


def fly(aviary: Aviary, seconds: float, every: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Step for ``seconds``; return times [s] and (k, n, 3) world velocities every ``every`` s."""
    steps_per_sample = round(every * aviary.physics_hz / aviary.updates_per_step)
    times, velocities = [], []
    for k in range(1, round(seconds / every) + 1):
        for _ in range(steps_per_sample):
            aviary.step()
        times.append(aviary.elapsed_time)
        velocities.append([d.world_velocity.copy() for d in aviary.drones])
        assert np.isclose(aviary.elapsed_time, k * every)
    return np.array(times), np.array(velocities)


def test_constant_wind_pushes_the_drone_downwind():
    with hovering("constant", dict(velocity=[WIND_SPEED, 0.0, 0.0])) as aviary:
        times, velocities = fly(aviary, 5.0)
        vx = velocities[:, 0, 0]
        assert np.all(vx > 0.0)
        assert np.all(np.diff(vx) > 0.0)           # growing ...
        assert np.all(vx < WIND_SPEED)             # ... toward the wind speed, from below
        assert np.all(np.diff(WIND_SPEED - vx) < 0.0)
        assert np.all(np.abs(velocities[:, 0, 1]) < 1e-6)  # no crosswind drift
        position = aviary.state(0)[3]
        assert position[0] > 0.5 and abs(position[1]) < 1e-6


def test_constant_wind_drift_matches_quadratic_drag_closed_form():
    """From rest, level, only body-x drag acts along x: m dv/dt = k (W - v)^2 with
    k = rho Cd A_x / 2, so v(t) = W s / (1 + s), s = k W t / m.

    Separable ODE, exact; the simulation's drag lags one physics step and the integrator
    errs by O(dt), well under the 1 % allowed. This also fails if any hidden drag on ground
    velocity (e.g. PyBullet's default damping) acts on the drone.
    """
    with hovering("constant", dict(velocity=[WIND_SPEED, 0.0, 0.0])) as aviary:
        drone = aviary.drones[0]
        drag = drone.params["drag_params"]
        k = 0.5 * AIR_DENSITY * drag["drag_coefs"][0][0] * drag["normal_areas"][0][0]
        times, velocities = fly(aviary, 5.0)
        assert np.all(np.abs(aviary.state(0)[1, :2]) < 1e-6)  # stayed level: body x = world x
        s = k * WIND_SPEED * times / drone.mass
        np.testing.assert_allclose(velocities[:, 0, 0], WIND_SPEED * s / (1.0 + s), rtol=0.01)


def test_gust_acts_only_after_it_starts():
    options = dict(amplitude=[0.0, 3.0, 0.0], start_time=1.0, duration=2.0)
    with hovering("gust", options) as aviary:
        times, velocities = fly(aviary, 4.0, every=0.25)
        vy = velocities[:, 0, 1]
        assert np.all(np.abs(vy[times <= 1.0]) < 1e-9)
        assert np.all(vy[times >= 1.5] > 0.0)
        assert np.all(np.diff(vy[(times >= 1.25) & (times <= 2.5)]) > 0.0)  # pushed ...
        assert np.all(np.diff(vy[times >= 3.0]) < 0.0)  # ... and, once it is over, braked


def test_shear_pushes_the_higher_drone_harder():
    options = dict(reference_velocity=[WIND_SPEED, 0.0, 0.0], reference_height=10.0,
                   law="log", roughness_length=0.03)
    with hovering("shear", options, start_pos=((0.0, 0.0, 1.0), (0.0, 5.0, 8.0))) as aviary:
        _, velocities = fly(aviary, 2.0)
        low, high = velocities[-1, 0, 0], velocities[-1, 1, 0]
        assert 0.0 < low < high < WIND_SPEED
        # Drag from rest grows with (air speed)^2: the ratio is near the squared wind ratio.
        ratio = (np.log(8.0 / 0.03) / np.log(1.0 / 0.03)) ** 2
        assert high / low == pytest.approx(ratio, rel=0.1)


class RecordingDryden(DrydenWind):
    """Dryden that logs every call (time, value) for inspection."""

    def __init__(self, np_random, **options):
        super().__init__(np_random, **options)
        self.calls: list[tuple[float, np.ndarray]] = []

    def __call__(self, time, position):
        value = super().__call__(time, position)
        self.calls.append((time, value.copy()))
        return value


def test_dryden_advances_once_per_physics_step_and_is_shared_by_all_drones():
    with hovering(RecordingDryden, {}, start_pos=((0.0, 0.0, 5.0), (3.0, 0.0, 5.0),
                                                  (0.0, 3.0, 5.0))) as aviary:
        for _ in range(20):
            aviary.step()
        probe, *calls = aviary.wind_field.calls  # the first: the output check at construction
        assert probe[1].shape == (5, 3)
        assert len(calls) == 3 * aviary.physics_steps
        times = np.array([t for t, _ in calls]).reshape(-1, 3)
        values = np.array([v[0] for _, v in calls]).reshape(-1, 3, 3)
        np.testing.assert_allclose(times[:, 0], np.arange(len(times)) * aviary.physics_period)
        assert np.all(times == times[:, :1])
        assert np.all(values == values[:, :1])             # the same gust for every drone
        assert np.all(np.any(np.diff(values[:, 0], axis=0) != 0.0, axis=1))  # new each step


def test_dryden_same_seed_same_flight():
    def trajectory(aviary: Aviary) -> np.ndarray:
        positions = []
        for _ in range(240):
            aviary.step()
            positions.append(aviary.state(0)[3])
        return np.array(positions)

    with hovering("dryden", dict(wind_speed_20ft=15.0)) as a, \
            hovering("dryden", dict(wind_speed_20ft=15.0)) as b:
        first = trajectory(a)
        np.testing.assert_array_equal(trajectory(b), first)
        a.reset(seed=0)
        a.set_mode(-1)
        a.set_setpoint(0, [a.drones[0].hover_throttle] * 4)
        np.testing.assert_array_equal(trajectory(a), first)
        a.reset(seed=1)
        a.set_mode(-1)
        a.set_setpoint(0, [a.drones[0].hover_throttle] * 4)
        assert np.abs(trajectory(a) - first).max() > 1e-3
        # Turbulence moves the drone sideways, which a calm hover would not.
        assert np.abs(first[:, :2]).max() > 1e-3


def test_a_registered_name_is_found_by_the_aviary(monkeypatch):
    class Calm(ConstantWind):
        wind_name = "calm"

    monkeypatch.setitem(WIND_FIELDS, "calm", Calm)
    with hovering("calm", dict(velocity=[0.0, -1.0, 0.0])) as aviary:
        assert type(aviary.wind_field) is Calm
        fly(aviary, 1.0)
        assert aviary.drones[0].world_velocity[1] < 0.0
