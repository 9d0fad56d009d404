"""The multirotor family of the batched engine: what :class:`~.aviary.BatchedAviary` asks
of a vehicle family, for the multirotors of :mod:`pyflyt_like.common.multirotor_model`
(kernels: :mod:`.pipeline`)."""

from __future__ import annotations

import numpy as np

from pyflyt_like.common.angles import quaternions_to_euler
from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.multirotor_model import MultirotorModel
from pyflyt_like.common.rates import BATCHED_MULTIROTOR_PHYSICS_HZ
from pyflyt_like.control.multirotor_modes import (
    HEADING_MODES,
    MULTIROTOR_MODES,
    hold_setpoints,
    setpoint_size,
)

from . import pipeline
from .arrays import zeros_state
from .build import control_rate, engine_config, nominal_arrays, plant_arrays
from .memory import engine_bytes, sensors_text
from .obstacles import multirotor_collision_radius
from .options import BatchedAviaryOptions
from .randomization import check_randomize, draw_plant


class MultirotorFamily:
    """Multirotors in the batched engine (modes -1, 0, 1, 2, 7)."""

    name = "multirotor"
    modes = MULTIROTOR_MODES
    #: the modes whose kernel compiles the outer loop (the geometric position controller)
    outer_loop_modes = (int(FlightMode.POSITION),)
    pipeline = pipeline  # its STAGES, prepare and run_worlds

    #: physics_hz [Hz] when none is given
    default_physics_hz = BATCHED_MULTIROTOR_PHYSICS_HZ

    #: default start positions when none are given: drone i at (i, 0, 1) m
    start_spacing, start_height = (1.0, 0.0, 0.0), 1.0

    def __init__(self, model: MultirotorModel, options: BatchedAviaryOptions):
        self.model = model
        self.options = options  # physics_hz resolved
        self.randomize = check_randomize(options.randomize)
        self.control_hz = control_rate(model, options)
        self.nominal = nominal_arrays(model)
        #: the collision sphere's radius [m] against obstacles (and for the start rule)
        self.collision_radius = multirotor_collision_radius(model)
        self.config = engine_config(options, self.control_hz, self.collision_radius)
        self.dt = 1.0 / options.physics_hz
        self.weight = model.mass * options.gravity

    def memory_bytes(self, n_worlds: int, n_drones: int, sensors=None) -> tuple[float, str]:
        """The engine's estimated peak memory [bytes] (with the arrays of ``sensors``, the
        resolved sensor parameters) and what flies in it."""
        n = self.model.n_rotors
        return (engine_bytes(n_worlds, n_drones, n, sensors),
                f"{n} rotors each{sensors_text(sensors)}")

    def setpoint_size(self, mode: int) -> int:
        return setpoint_size(mode, self.model.n_rotors)

    def zeros_state(self, n_worlds: int, n_drones: int, setpoint_size: int, sensors=None):
        """The state arrays, with those of ``sensors`` (resolved parameters; None: none)."""
        return zeros_state(n_worlds, n_drones, self.model.n_rotors, setpoint_size, sensors)

    def new_plant(self, options: BatchedAviaryOptions):
        return plant_arrays(self.model, options)

    def clear(self, state, worlds: np.ndarray) -> None:
        """Stop the rotors of ``worlds``."""
        for name in ("rotor_speed", "rotor_command", "wrench"):
            getattr(state, name)[worlds] = 0.0

    def draw_plant(self, rng: np.random.Generator, plant, worlds: np.ndarray) -> None:
        draw_plant(rng, self.randomize, self.model, plant, worlds, self.dt)

    def reset_controllers(self, state, plant, mode: int, worlds) -> None:
        """Clear the controllers of ``worlds`` and preset their setpoints to hold."""
        state.rate_integral[worlds] = 0.0
        state.rate_previous[worlds] = 0.0
        state.rate_fresh[worlds] = True
        state.use_reference[worlds] = False
        yaw = (quaternions_to_euler(state.quat[worlds])[..., 2] if mode in HEADING_MODES
               else None)
        state.setpoint[worlds] = hold_setpoints(mode, self.model.n_rotors, self.weight,
                                                state.pos[worlds], yaw)

    def check_setpoints(self, mode: int, setpoints: np.ndarray) -> None:
        """Mode -1's rotor speeds within the model's limits."""
        if mode == FlightMode.ACTUATORS:
            low, high = self.model.min_speed - 1e-9, self.model.max_speed + 1e-9
            if setpoints.min() < low or setpoints.max() > high:
                raise ValueError(f"rotor speed setpoints must lie within "
                                 f"[{self.model.min_speed:.6g}, {self.model.max_speed:.6g}] "
                                 f"{self.model.rotor_speed_unit}")

    def setpoints_given(self, state) -> None:
        """New setpoints replace a mode-7 flat reference."""
        state.use_reference[:] = False

    def aux_state(self, state) -> np.ndarray:
        """(W, D, n) rotor speeds, the PyBullet Multirotor's ``aux_state``."""
        return state.rotor_speed.copy()
