"""Shared by the cross-validation tests: one command sequence flown by both engines."""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.core import Aviary

HZ = 240
START = (0.0, 0.0, 1.0)


def command(mode: int, t: float, hover: float, weight: float, n_rotors: int) -> np.ndarray:
    """A smooth setpoint of ``mode`` at time ``t`` [s]."""
    s, c = math.sin(2 * math.pi * 0.5 * t), math.cos(2 * math.pi * 0.5 * t)
    if mode == -1:
        phases = np.arange(n_rotors) * 2 * math.pi / n_rotors
        return hover * (1.0 + 0.01 * s + 0.0005 * np.sin(2 * math.pi * t + phases))
    if mode == 0:
        return np.array((0.3 * s, 0.2 * c, 0.2 * s, weight * (1.0 + 0.05 * s)))
    if mode == 1:
        return np.array((0.1 * s, 0.08 * (1 - c), 0.2 * s, weight * (1.0 + 0.05 * c)))
    if mode == 2:
        return np.array((weight * (1.0 + 0.05 * s), 2e-5 * weight * s, 1e-5 * weight * c,
                         1e-5 * weight * s))
    return np.array((0.4 * s, 0.3 * (1 - c), 0.3 * s, 1.0 + 0.2 * s))


def fly_both(model: str, mode: int, seconds: float = 2.0, start=(START,), wind=None,
             shear=None, model_dir=None, **aerodynamics) -> tuple[np.ndarray, np.ndarray]:
    """(steps, drones, 4, 3) states of the PyBullet Multirotors and of the batched engine,
    flying the same commands from ``start`` positions; ``wind`` a constant (3,) [m/s], or
    ``shear`` the options of a shear wind; ``aerodynamics`` the ground_effect / rotor_drag /
    downwash switches of both; ``model_dir`` a folder of model folders (default the
    package's)."""
    start = np.array(start, dtype=float)
    n_drones = len(start)
    sim = BatchedAviary(n_worlds=1, n_drones=n_drones, drone_model=model, mode=mode,
                        physics_hz=HZ, control_hz=HZ, start_pos=start, wind=wind,
                        shear=shear, model_dir=model_dir, **aerodynamics)
    hover, weight = sim.hover_speed, sim.model.mass * sim.gravity
    n = sim.model.n_rotors
    wind_options = {} if wind is None else dict(wind_type="constant",
                                                wind_options=dict(velocity=wind))
    if shear is not None:
        wind_options = dict(wind_type="shear", wind_options=shear)
    pybullet_states, batch_states = [], []
    with Aviary(start, np.zeros((n_drones, 3)), drone_type="multirotor", physics_hz=HZ,
                drone_options=dict(drone_model=model, control_hz=HZ, model_dir=model_dir,
                                   **aerodynamics),
                **wind_options) as aviary:
        aviary.set_mode(mode)
        for k in range(int(seconds * HZ)):
            setpoint = command(mode, k / HZ, hover, weight, n)
            setpoints = np.tile(setpoint, (n_drones, 1))
            if mode == 7:  # the position command is about START: move it to each start
                setpoints[:, [0, 1, 3]] += start
                setpoints[:, 3] -= START[2]
            for i in range(n_drones):
                aviary.set_setpoint(i, setpoints[i])
            sim.set_setpoints(setpoints)
            aviary.step()
            sim.step()
            pybullet_states.append(np.array([aviary.state(i) for i in range(n_drones)]))
            batch_states.append(sim.state[0].copy())
    return np.array(pybullet_states), np.array(batch_states)
