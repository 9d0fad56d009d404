"""The fixed-wing family of the batched engine: what :class:`~..aviary.BatchedAviary` asks
of a vehicle family, for the aircraft of :mod:`pyflyt_like.physics.fixedwing_model`
(kernels: :mod:`.pipeline`)."""

from __future__ import annotations

import numpy as np

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.urdf_bodies import collision_radius
from pyflyt_like.common.validation import check_rate_divides
from pyflyt_like.physics.fixedwing_model import (
    AUTOPILOT_MODES,
    FIXEDWING_MODES,
    SURFACE_COMMANDS,
    FixedwingModel,
)

from ..memory import estimated_bytes, layout_bytes, sensors_read_added, sensors_text
from ..options import BatchedAviaryOptions
from . import pipeline
from .arrays import zeros_fixedwing_plant, zeros_fixedwing_state
from .build import FIXEDWING_INTEGRATORS, fixedwing_config, fixedwing_nominal, fixedwing_plant
from .controllers import hold_setpoints
from .randomization import check_fixedwing_randomize, draw_fixedwing_plant

#: Options of the multirotors' rotor aerodynamics, which a fixed-wing does not take.
ROTOR_OPTIONS = ("ground_effect", "rotor_drag", "downwash")


class FixedwingFamily:
    """Fixed-wing aircraft in the batched engine (modes -1, 0, 1, 2, 3)."""

    name = "fixedwing"
    #: the modes whose kernel compiles the outer loop (the autopilot: TECS, heading, bank)
    outer_loop_modes = AUTOPILOT_MODES
    pipeline = pipeline  # its STAGES, prepare and run_worlds

    #: physics_hz [Hz] when none is given
    default_physics_hz = DEFAULT_PHYSICS_HZ

    #: default start positions when none are given: aircraft i at (0, 10 i, 50) m, side
    #: by side, heading east, high enough to manoeuvre
    start_spacing, start_height = (0.0, 10.0, 0.0), 50.0

    def __init__(self, model: FixedwingModel, options: BatchedAviaryOptions):
        for option in ROTOR_OPTIONS:
            if getattr(options, option):
                raise ValueError(f"{option} is a rotor model of multirotors; "
                                 f"drone_model={options.drone_model!r} is a fixed-wing")
        if options.integrator not in FIXEDWING_INTEGRATORS:
            raise ValueError(f"integrator must be one of {list(FIXEDWING_INTEGRATORS)} for a "
                             f"fixed-wing, got {options.integrator!r}")
        self.model = model
        self.options = options  # physics_hz resolved
        self.modes = FIXEDWING_MODES if model.has_autopilot else tuple(
            m for m in FIXEDWING_MODES if m not in AUTOPILOT_MODES)
        self.randomize = check_fixedwing_randomize(options.randomize)
        if options.control_hz is None:  # the YAML's, as the PyBullet Fixedwing
            if options.physics_hz % model.control_hz:
                raise ValueError(f"{model.param_path}: control_hz {model.control_hz} does not "
                                 f"divide physics_hz={options.physics_hz}; give a control_hz "
                                 "that does")
            self.control_hz = model.control_hz
        else:
            check_rate_divides("control_hz", options.control_hz, options.physics_hz)
            self.control_hz = options.control_hz
        self.dt = 1.0 / options.physics_hz
        self.nominal = fixedwing_nominal(model, self.dt, 1.0 / self.control_hz,
                                         options.gravity)
        #: the collision sphere's radius [m] against obstacles (and for the start rule): it
        #: holds every collision shape of the URDF
        self.collision_radius = collision_radius(model.param_path.with_suffix(".urdf"))
        self.config = fixedwing_config(options, self.control_hz, self.collision_radius)

    def memory_bytes(self, n_worlds: int, n_drones: int, sensors=None) -> tuple[float, str]:
        """The engine's estimated peak memory [bytes] (with the arrays of ``sensors``, the
        resolved sensor parameters) and what flies in it."""
        n = self.model.n_surfaces
        per_world, per_drone = layout_bytes(lambda drones: (
            *zeros_fixedwing_state(1, drones, n, SURFACE_COMMANDS + 1, sensors),
            *zeros_fixedwing_plant(1, drones, n)))
        return (sensors_read_added(estimated_bytes(n_worlds, n_drones, per_world, per_drone),
                                   n_worlds, n_drones, sensors),
                f"fixed-wings of {n} surfaces{sensors_text(sensors)}")

    def setpoint_size(self, mode: int) -> int:
        """Mode -1: the five surface commands and the throttle; else 4."""
        return SURFACE_COMMANDS + 1 if mode == FlightMode.ACTUATORS else 4

    def zeros_state(self, n_worlds: int, n_drones: int, setpoint_size: int, sensors=None):
        """The state arrays, with those of ``sensors`` (resolved parameters; None: none)."""
        return zeros_fixedwing_state(n_worlds, n_drones, self.model.n_surfaces, setpoint_size,
                                     sensors)

    def new_plant(self, options: BatchedAviaryOptions):
        return fixedwing_plant(self.model, options)

    def clear(self, state, worlds: np.ndarray) -> None:
        """Centre the surfaces of ``worlds``, spin their motors down."""
        for name in ("deflection", "throttle", "surface_command", "thrust_command", "wrench"):
            getattr(state, name)[worlds] = 0.0

    def draw_plant(self, rng: np.random.Generator, plant, worlds: np.ndarray) -> None:
        draw_fixedwing_plant(rng, self.randomize, self.model, plant, worlds, self.dt)

    def reset_controllers(self, state, plant, mode: int, worlds) -> None:
        """Clear the controllers of ``worlds`` and preset their setpoints to hold."""
        state.rate_integral[worlds] = 0.0
        state.rate_previous[worlds] = 0.0
        state.rate_fresh[worlds] = True
        state.tecs[worlds] = 0.0
        indices = np.arange(state.pos.shape[0])[worlds]
        hold_setpoints(state, self.nominal, self.config, mode, indices)

    def check_setpoints(self, mode: int, setpoints: np.ndarray) -> None:
        """Nothing beyond finiteness: commands are clipped to their ranges, as PyBullet's."""

    def setpoints_given(self, state) -> None:
        """Nothing to do: fixed-wings have no reference besides their setpoints."""

    def aux_state(self, state) -> np.ndarray:
        """(W, D, n + 1): the surface deflections [rad] in the YAML's order and the motor
        throttle, the PyBullet Fixedwing's ``aux_state``."""
        return np.concatenate((state.deflection, state.throttle[..., None]), axis=-1)
