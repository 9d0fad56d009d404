"""Aviary: one PyBullet world, the drones in it, and the loop that steps them."""

from __future__ import annotations

import inspect
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pybullet
import pybullet_data
from pybullet_utils import bullet_client

from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.validation import (
    as_float_array,
)
from pyflyt_like.worlds import World

from .abstractions.base_drone import DroneClass
from .abstractions.base_wind_field import (
    FunctionWindField,
    WindFieldClass,
    check_wind_field_output,
)
from .aviary_options import (
    GRAVITY,
    AviaryOptions,
    check_aviary_seed,
    check_world_spec,
)
from .aviary_worlds import WORLD_DRAWS as WORLD_DRAWS  # importable from here, as before
from .aviary_worlds import AviaryWorlds
from .drones.fixedwing import Fixedwing
from .drones.multirotor import Multirotor
from .drones.quadplane import QuadPlane
from .drones.quadx import QuadX
from .drones.rocket import Rocket
from .utils.display import display_available
from .utils.quiet import quiet_native_output
from .wind import WIND_FIELDS

DRONE_TYPES: dict[str, type[DroneClass]] = {
    "quadx": QuadX,
    "fixedwing": Fixedwing,
    "rocket": Rocket,
    "quadplane": QuadPlane,
    "multirotor": Multirotor,
}

class Aviary(bullet_client.BulletClient):
    """A PyBullet world hosting ``n`` drones, stepped at a fixed physics rate.

    Args:
        start_pos: (n, 3) spawn positions [m].
        start_orn: (n, 3) spawn orientations, Euler roll, pitch, yaw [rad].
        drone_type: a drone type name, or a list of ``n`` names.
        drone_type_mappings: extra ``name -> DroneClass`` entries, merged over the built-ins.
        drone_options: keyword options for the drone constructors; one dict for all, or ``n``.
        wind_type: ``None``, a built-in wind name, or a :class:`WindFieldClass` subclass.
        wind_options: keyword options for the wind field.
        render: open PyBullet's GUI (and hold real time) instead of running headless.
        physics_hz: physics rate [Hz].
        world_scale: scale of the ground plane.
        seed: seed of the random generator (``0`` is a seed; ``None`` draws one).
        np_random: a generator to use instead of seeding a new one.
        gravity: magnitude of gravity [m/s^2], pointing down (-z); default 9.81.
        world: obstacles (docs/worlds.md, "On the PyBullet Aviary"): ``None``; a
            :class:`~pyflyt_like.worlds.World`, spawned once and kept; a generator
            (``Forest``, ``Rooms``, ``Clutter``), drawn from ``np_random`` at every
            :meth:`reset` (the first during construction); or a world file, a shipped name
            or a ``.yaml`` path (a file with a ``seed`` pins its World, one without gives its
            generator). A layout in which a drone's bounding sphere overlaps an obstacle is
            drawn again, up to :data:`WORLD_DRAWS` times; a World that traps one raises.
        world_redraw: with a generator, draw a new layout at every reset (``True``, its sizes
            rounded to 1 mm so that PyBullet's shapes are reused) or only at the first
            (``False``, kept after).

    ``step()`` advances one control period of the slowest drone.

    Attributes:
        world: the :class:`~pyflyt_like.worlds.World` now spawned (the union of every world
            given), or ``None``.
        world_body_ids: its body ids, one per primitive in the order of
            ``world.primitives``.
    """

    def __init__(
        self,
        start_pos,
        start_orn,
        drone_type: str | Sequence[str] = "quadx",
        drone_type_mappings: dict[str, type[DroneClass]] | None = None,
        drone_options: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
        wind_type: str | type[WindFieldClass] | None = None,
        wind_options: dict[str, Any] | None = None,
        render: bool = False,
        physics_hz: int = DEFAULT_PHYSICS_HZ,
        world_scale: float = 1.0,
        seed: int | None = None,
        np_random: np.random.Generator | None = None,
        gravity: float = GRAVITY,
        world: object = None,
        world_redraw: bool = True,
    ):
        options = AviaryOptions(
            start_pos=start_pos, start_orn=start_orn, built_in_drone_types=DRONE_TYPES,
            drone_type=drone_type, drone_type_mappings=drone_type_mappings,
            drone_options=drone_options, wind_type=wind_type, wind_options=wind_options,
            render=render, physics_hz=physics_hz, world_scale=world_scale, seed=seed,
            np_random=np_random, gravity=gravity, world=world, world_redraw=world_redraw)
        self.options = options
        self.start_pos, self.start_orn = options.start_pos, options.start_orn
        self.num_drones = options.num_drones
        self.physics_hz = options.physics_hz
        self.physics_period = 1.0 / self.physics_hz
        self.world_scale = options.world_scale
        self.drone_type_mappings = options.drone_type_mappings
        self.drone_types = options.drone_types
        self.drone_options = options.drone_options
        self.np_random = options.np_random
        self.render = options.render
        self.gravity = options.gravity
        self.world_redraw = options.world_redraw

        if self.render and not display_available():
            # PyBullet's GUI would print "cannot connect to X server" and end the process.
            raise RuntimeError("render=True opens PyBullet's GUI, which needs a display (DISPLAY "
                               "is not set); run headless with render=False, or use an env's "
                               'render_mode="rgb_array" for frames')
        with quiet_native_output():  # PyBullet prints "argv[0]=" on every connect
            super().__init__(pybullet.GUI if self.render else pybullet.DIRECT)
        try:
            self._build_world(wind_type, options.wind_options)
        except BaseException:
            self.close()  # a constructor that raises must not leak its connection
            raise

    def _build_world(self, wind_type, wind_options: dict[str, Any]) -> None:
        """Everything after connecting: ground, wind, drones, the first reset."""
        client = self._client
        pybullet.setGravity(0.0, 0.0, -self.gravity, physicsClientId=client)
        pybullet.setTimeStep(self.physics_period, physicsClientId=client)
        pybullet.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=client)
        if self.render:
            pybullet.configureDebugVisualizer(pybullet.COV_ENABLE_GUI, 0, physicsClientId=client)
        # An infinite collision plane (plane.urdf's is a 200 m box that ends at |x| = 100 m,
        # short of a dogfight dome); world_scale scales its 200 m textured visual.
        self.planeId = pybullet.loadURDF("plane_implicit.urdf", useFixedBase=True,
                                         globalScaling=self.world_scale, physicsClientId=client)
        pybullet.changeDynamics(self.planeId, -1, lateralFriction=1.0, physicsClientId=client)

        self.wind_field: WindFieldClass | None = self._make_wind(wind_type, wind_options)
        self.elapsed_time = 0.0
        self.physics_steps = 0
        self.aviary_steps = 0
        self.drones: list[DroneClass] = [
            self._make_drone(i) for i in range(self.num_drones)
        ]
        self._check_control_rates()
        self.armed = np.ones(self.num_drones, dtype=bool)
        self._armed_drones = list(self.drones)
        self._snapshot: int | None = None
        # A weak proxy, as the drones': no aviary <-> worlds cycle.
        self._worlds = AviaryWorlds(weakref.proxy(self))
        if self.options.world is not None:  # a generator's layout is drawn by reset()
            self._worlds.add(self.options.world, "world")
        self.register_all_new_bodies()
        self._last_wall_time = time.perf_counter()
        self.reset()

    # ------------------------------------------------------------------ construction
    def _make_drone(self, index: int) -> DroneClass:
        drone_class = self.drone_type_mappings[self.drone_types[index]]
        options = self.drone_options[index]
        # What a vehicle accepts: the named parameters of every __init__ along its class
        # chain (subclasses often forward **kwargs), plus its declared keyword options.
        accepted: dict[str, inspect.Parameter] = {}
        for cls in drone_class.__mro__:
            if "__init__" in vars(cls) and issubclass(cls, DroneClass):
                accepted.update(inspect.signature(cls.__init__).parameters)
        fixed = ("self", "p", "start_pos", "start_orn", "physics_hz", "np_random")
        named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        allowed = [k for k, v in accepted.items() if k not in fixed and v.kind in named]
        allowed += list(getattr(drone_class, "keyword_options", ()))
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise ValueError(f"drone_options {unknown} not accepted by "
                             f"{drone_class.__name__}; allowed: {allowed}")
        # Drones reach the aviary through a weak proxy: no drone <-> aviary cycle, so a
        # dropped Aviary disconnects at once instead of when the cyclic GC runs.
        return drone_class(weakref.proxy(self), start_pos=self.start_pos[index],
                           start_orn=self.start_orn[index], physics_hz=self.physics_hz,
                           np_random=self.np_random, **options)

    def _make_wind(self, wind_type, wind_options: dict[str, Any]) -> WindFieldClass | None:
        if wind_type is None:
            return None
        if isinstance(wind_type, str):
            if wind_type not in WIND_FIELDS:
                raise ValueError(f"wind_type {wind_type!r} is unknown; allowed: None, a "
                                 f"WindFieldClass subclass, or one of {sorted(WIND_FIELDS)}")
            wind_type = WIND_FIELDS[wind_type]
        if not (isinstance(wind_type, type) and issubclass(wind_type, WindFieldClass)):
            raise TypeError(f"wind_type must be None, a name or a WindFieldClass subclass, got "
                            f"{wind_type!r} (use register_wind_field_function for functions)")
        parameters = inspect.signature(wind_type.__init__).parameters
        if "sample_period" in parameters:  # fields that filter noise step at physics rate
            wind_options = {"sample_period": self.physics_period, **wind_options}
        if not any(v.kind is inspect.Parameter.VAR_KEYWORD for v in parameters.values()):
            allowed = [k for k in parameters if k not in ("self", "np_random")]
            unknown = sorted(set(wind_options) - set(allowed))
            if unknown:
                raise ValueError(f"wind_options {unknown} not accepted by {wind_type.__name__}; "
                                 f"allowed: {allowed}")
        # By keyword, as PyFlyt does: user fields put np_random after their own parameters.
        wind_field = wind_type(np_random=self.np_random, **wind_options)
        check_wind_field_output(wind_field)
        return wind_field

    def _check_control_rates(self) -> None:
        slowest = min(d.control_hz for d in self.drones)
        self.updates_per_step = self.physics_hz // slowest
        for drone in self.drones:
            if self.updates_per_step % drone.physics_control_ratio:
                raise ValueError(
                    f"control rates {sorted({d.control_hz for d in self.drones})} Hz must be "
                    "integer multiples of each other")

    def register_all_new_bodies(self) -> None:
        """Track the bodies now in the world (call after loading any).

        Resizes ``contact_array`` and saves the world as it is now, so :meth:`reset` puts the
        new bodies back where they are at this call (the drones go back to their spawn poses
        as always). A world drawn anew at every reset stays out of the saved state: its
        bodies are taken out for the save and put back (the same layout).
        """
        client, worlds = self._client, self._worlds
        live = [p for p in worlds.live_parts() if p.body_ids]
        worlds.take_out(live)
        if self._snapshot is not None:
            pybullet.removeState(self._snapshot, physicsClientId=client)
        self._snapshot = pybullet.saveState(physicsClientId=client)
        worlds.put_back(live)
        # Sized by the largest body id: ids are reused after removals (a redrawn world),
        # so they need not run 0 .. n-1.
        n_bodies = 1 + max((pybullet.getBodyUniqueId(i, physicsClientId=client)
                            for i in range(pybullet.getNumBodies(physicsClientId=client))),
                           default=-1)
        self.contact_array = np.zeros((n_bodies, n_bodies), dtype=bool)

    def _fit_contacts(self) -> None:
        """Grow ``contact_array`` to the largest world body id (a spawn may take new ids);
        it never shrinks on a redraw, so per-body masks built on it stay valid."""
        needed = 1 + max(self.world_body_ids, default=-1)
        size = self.contact_array.shape[0]
        if needed > size:
            contacts = np.zeros((needed, needed), dtype=bool)
            contacts[:size, :size] = self.contact_array
            self.contact_array = contacts

    # ------------------------------------------------------------------ worlds
    # Read-only views of the worlds' bookkeeping (core/aviary_worlds.py): the same objects,
    # so the LiDAR's identity checks see a change exactly when the world changes.
    @property
    def world(self) -> World | None:
        """The World now spawned (the union of every world given), or ``None``."""
        return self._worlds.world

    @property
    def world_body_ids(self) -> list[int]:
        """The world's body ids, one per primitive in the order of ``world.primitives``."""
        return self._worlds.body_ids

    def add_world(self, spec: object) -> list[int]:
        """Spawn a world after construction (PyFlyt style: build, then load bodies).

        ``spec`` takes the forms of the ``world`` argument (a World, a generator, a world
        file). The world is added to any already there: :attr:`world` becomes the union (the
        earlier primitives first) and :attr:`world_body_ids` grows. A generator's layout is
        drawn now, from ``np_random``, and again at every :meth:`reset` (unless
        ``world_redraw=False``). The bodies are registered as
        :meth:`register_all_new_bodies` does, so :meth:`reset` keeps them.

        Returns:
            The new bodies' ids, one per primitive of the added world.

        Raises:
            TypeError, ValueError, FileNotFoundError: a bad ``spec`` (named); a world that
                traps a drone's start (``start_pos[i]`` named; for a generator, in each of
                ``WORLD_DRAWS`` draws); more primitives in all than ``MAX_PRIMITIVES``. A
                refused call changes nothing: :attr:`world`, :attr:`world_body_ids`, the
                resets to come and ``np_random`` are as before it.
        """
        spec = check_world_spec("spec", spec)
        if spec is None:
            raise TypeError("spec must be a World, a Forest, Rooms or Clutter generator, or a "
                            "world file, got None")
        part = self._worlds.add(spec, "spec", draw=True)  # refused: nothing changed
        self.register_all_new_bodies()  # after which a live part's bodies have new ids
        return list(part.body_ids)

    def use_world(self, world: World) -> list[int]:
        """Fly among ``world`` from now on, in place of the last world this method gave
        (a twin of the batched engine shows the layout its episode drew): its bodies are
        spawned now and again after every :meth:`reset`, kept out of the saved state as a
        redrawn generator's (about 40 ms for a 250-tree forest once its trunk sizes have
        been met). Re-read :attr:`world_body_ids` after it.

        Returns:
            The new bodies' ids, one per primitive.

        Raises:
            TypeError: ``world`` not a :class:`~pyflyt_like.worlds.World`.
            ValueError: the aviary has a world from ``world=`` or :meth:`add_world` (this
                replaces only its own), or ``world`` traps a drone's start.
        """
        body_ids = self._worlds.use(world)
        self._fit_contacts()
        return body_ids

    def register_wind_field_function(self, function: Callable[[float, np.ndarray], np.ndarray]
                                     ) -> None:
        """Use ``function(time [s], position (n, 3) [m]) -> (n, 3) [m/s]`` as the wind."""
        wind_field = FunctionWindField(function, self.np_random)
        check_wind_field_output(wind_field)
        self.wind_field = wind_field

    # ------------------------------------------------------------------ episode control
    def reset(self, seed: int | None = None) -> None:
        """Put every drone back at its spawn pose; reseed first if ``seed`` is given.

        The world is not rebuilt: a saved PyBullet state is restored, so a reset costs well
        under a millisecond and the same seed replays the same trajectory bit for bit. A
        generator's world (``world_redraw``, the default) is drawn anew right after the
        reseed, so the same seed draws the same layout: its old bodies are removed before
        the restore and the new ones created after it (they are kept out of the saved
        state, whose ``saveState`` would cost 0.3 s per forest), about 40 ms for a 250-tree
        forest once its trunk sizes have been met. Re-read :attr:`world_body_ids` after it.
        """
        if seed is not None:
            check_aviary_seed(seed)
            self.np_random.bit_generator.state = type(self.np_random.bit_generator)(seed).state
        client, worlds = self._client, self._worlds
        live = worlds.live_parts()
        worlds.take_out(live)
        if self._snapshot is None:
            for drone in self.drones:
                drone.reset()
            self._snapshot = pybullet.saveState(physicsClientId=client)
        else:
            pybullet.restoreState(self._snapshot, physicsClientId=client)
        if worlds.draw_first():  # world_redraw=False: drawn at the first reset, then saved
            self.register_all_new_bodies()
        for part in live:
            worlds.draw(part)
        if live:
            self._fit_contacts()
        self.elapsed_time = 0.0
        self.physics_steps = 0
        self.aviary_steps = 0
        self.contact_array[:] = False
        if self.wind_field is not None:
            self.wind_field.reset()
        for drone in self.drones:
            drone.reset()
        self.set_armed(True)

    def set_armed(self, settings: bool | Sequence[bool]) -> None:
        """Arm (True) or disarm every drone, or each with a list of ``n`` flags.

        A flag is a bool (Python or numpy) or the int 0 or 1 (Python or numpy), as PyFlyt's
        users pass; anything else (2, 0.5, "yes", None) is refused. A disarmed drone gets no
        control, physics or state updates.

        Raises:
            TypeError: a value that is neither a bool nor an int (e.g. ``"yes"``, ``0.5``).
            ValueError: an int other than 0 and 1, or a list of the wrong length.
        """
        if isinstance(settings, np.ndarray) and settings.ndim == 0:
            settings = settings[()]
        is_list = isinstance(settings, (list, tuple, np.ndarray))
        values = list(settings) if is_list else [settings] * self.num_drones
        bad_type = not all(isinstance(v, (bool, np.bool_, int, np.integer)) for v in values)
        if bad_type or len(values) != self.num_drones or not all(v in (0, 1) for v in values):
            error = TypeError if bad_type else ValueError
            raise error(f"settings must be a bool or the int 0 or 1 (for every drone), or a "
                        f"list of {self.num_drones} of them (one per drone), got {settings!r}")
        self.armed[:] = [bool(v) for v in values]
        self._armed_drones = [d for d, a in zip(self.drones, self.armed) if a]

    # ------------------------------------------------------------------ commands
    def _drone(self, index: int) -> DroneClass:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) \
                or not -self.num_drones <= index < self.num_drones:
            raise IndexError(f"index must be an int in [0, {self.num_drones}), got {index!r}")
        return self.drones[index]

    def set_mode(self, flight_modes: int | Sequence[int]) -> None:
        """Set one flight mode for all drones, or a list of ``n`` modes (all or nothing)."""
        if not isinstance(flight_modes, (list, tuple, np.ndarray)):
            flight_modes = [flight_modes] * self.num_drones  # each drone validates its mode
        modes = list(flight_modes)
        if len(modes) != self.num_drones:
            raise ValueError(f"flight_modes must be an int or {self.num_drones} ints, got "
                             f"{flight_modes!r}")
        valid = []
        for drone, mode in zip(self.drones, modes):
            if isinstance(mode, (int, np.integer)) and not isinstance(mode, bool) \
                    and mode in drone.available_modes:
                valid.append((drone, mode))
            else:  # before any drone has switched: raises the drone's own error
                drone.set_mode(mode)
        for drone, mode in valid:
            drone.set_mode(mode)

    def set_setpoint(self, index: int, setpoint) -> None:
        """Set drone ``index``'s setpoint (shape and meaning depend on its mode)."""
        self._drone(index).set_setpoint(setpoint)

    def set_all_setpoints(self, setpoints) -> None:
        """Set every drone's setpoint: an (n, k) array, or a list of ``n`` setpoints.

        A list lets a mixed fleet give each drone a setpoint of its own length. Every row is
        checked (numbers, finite, the length the drone's mode takes) before any is applied.
        """
        n = self.num_drones
        if isinstance(setpoints, (list, tuple)) and len(setpoints) == n and len(
                {_shape_or_none(row) for row in setpoints}) > 1:  # ragged: one row per drone
            rows = [as_float_array(f"setpoints[{i}]", row, (None,))
                    for i, row in enumerate(setpoints)]
        else:
            rows = list(as_float_array("setpoints", setpoints, (n, None)))
        for i, (drone, row) in enumerate(zip(self.drones, rows)):
            size = np.shape(drone.setpoint)
            if len(size) == 1 and size[0] and row.shape != size:
                raise ValueError(f"setpoints[{i}] must have shape {size} for drone {i} "
                                 f"({type(drone).__name__} in mode {drone.mode}), got "
                                 f"{row.shape}")
        for drone, row in zip(self.drones, rows):
            drone.set_setpoint(row)

    def set_all_propellers_rpm(self, rpms) -> None:
        """Set every drone's rotor speeds at once from an (n, n_props) array (model units).

        Each drone must offer ``set_propellers_rpm`` (e.g. ``Multirotor``); the same rules
        apply: non-negative, within limits, once per control tick.
        """
        # Checked once here only when it is not already a float64 (n, k) array: each drone
        # checks its own row (the per-step RL path stays cheap).
        if not (type(rpms) is np.ndarray and rpms.dtype == np.float64 and rpms.ndim == 2
                and rpms.shape[0] == self.num_drones):
            rpms = as_float_array("rpms", rpms, (self.num_drones, None))
        for index, (drone, row) in enumerate(zip(self.drones, rpms)):
            if not hasattr(drone, "set_propellers_rpm"):
                raise TypeError(f"drone {index} ({type(drone).__name__}) has no rotor-speed "
                                "actuation; set_all_propellers_rpm needs multirotors")
            drone.set_propellers_rpm(row)

    # ------------------------------------------------------------------ observations
    def state(self, index: int) -> np.ndarray:
        """Return a copy of drone ``index``'s (4, 3) state."""
        return self._drone(index).state.copy()

    def aux_state(self, index: int) -> np.ndarray:
        """Return a copy of drone ``index``'s auxiliary state (QuadX: motor throttles)."""
        return np.array(self._drone(index).aux_state, dtype=float)

    @property
    def all_states(self) -> np.ndarray:
        """(n, 4, 3) copy of every drone's state."""
        return np.stack([d.state for d in self.drones])

    @property
    def all_aux_states(self) -> np.ndarray | list[np.ndarray]:
        """Every drone's auxiliary state: stacked if they share a shape, else a list."""
        aux = [np.array(d.aux_state, dtype=float) for d in self.drones]
        if all(a.shape == aux[0].shape for a in aux):
            return np.stack(aux)
        return aux

    def read_sensors(self, index: int) -> dict[str, dict[str, Any]]:
        """Return drone ``index``'s latest sensor readings (``drone_options["sensors"]``).

        Only the configured sensors appear, each with the ``time`` [s] of its latest sample
        since the last reset: ``{"imu": {"time", "accel" (3,) [m/s^2, body], "gyro" (3,)
        [rad/s, body]}, "baro": {"time", "pressure" [Pa], "altitude" [m]}, "mag": {"time",
        "field" (3,) [uT, body]}, "gnss": {"time", "position" (3,) [m, world], "velocity" (3,)
        [m/s, world], "fix"}, "range": {"time", "range" [m], "valid"}}`` (copies; see
        docs/sensors.md). A drone without sensors returns ``{}``.

        Raises:
            IndexError: ``index`` is not an int in [-n, n) (as :meth:`state`).
        """
        sensors = getattr(self._drone(index), "sensors", None)
        return {} if sensors is None else sensors.read()

    def read_estimate(self, index: int) -> dict[str, Any]:
        """Return drone ``index``'s latest state estimate (``drone_options["estimator"]``).

        ``{"time" [s] of the last IMU sample fed (NaN before the filter initialised),
        "initialised", "quaternion" (4,) (x, y, z, w) body to world, "euler" (3,) [rad],
        "body_rates" (3,) [rad/s] from the bias-corrected gyro, "gyro_bias" (3,) [rad/s]}``;
        the EKF adds ``"position"`` (3,) [m, world], ``"velocity"`` (3,) [m/s, world] and
        ``"accel_bias"`` (3,) [m/s^2] (the complementary filter estimates the attitude only).
        Before the filter initialised (it waits for a GNSS fix and a magnetometer sample)
        the values are the reset state's. Copies; see docs/estimation.md ("Flying on the
        estimate"). A drone without an estimator returns ``{}``.

        Raises:
            IndexError: ``index`` is not an int in [-n, n) (as :meth:`state`).
        """
        estimator = getattr(self._drone(index), "estimator", None)
        return {} if estimator is None else estimator.read()

    def print_all_bodies(self) -> None:
        """Print the id and name of every body in the world."""
        for body in range(pybullet.getNumBodies(physicsClientId=self._client)):
            name = pybullet.getBodyInfo(body, physicsClientId=self._client)[1].decode()
            print(f"body {body}: {name}")

    # ------------------------------------------------------------------ the loop
    def step(self) -> None:
        """Advance one control period of the slowest drone (``updates_per_step`` physics steps).

        Per physics step, for every armed drone: control tick (when due), physics update,
        ``stepSimulation``, state update, last update. Contacts are OR-ed into
        ``contact_array`` over the call.
        """
        client = self._client
        contact_array = self.contact_array
        contact_array[:] = False
        drones = self._armed_drones
        step_simulation, get_contacts = pybullet.stepSimulation, pybullet.getContactPoints
        for _ in range(self.updates_per_step):
            physics_step = self.physics_steps
            for drone in drones:
                drone.update_control(physics_step)
            for drone in drones:
                drone.update_physics()
            step_simulation(physicsClientId=client)
            for drone in drones:
                drone.update_state()
            for drone in drones:
                drone.update_last(physics_step)
            self.physics_steps = physics_step + 1
            try:
                for contact in get_contacts(physicsClientId=client):
                    contact_array[contact[1], contact[2]] = True
                    contact_array[contact[2], contact[1]] = True
            except IndexError:
                raise RuntimeError("a body loaded after the Aviary was built touched another; "
                                   "call aviary.register_all_new_bodies() after loading "
                                   "bodies") from None
        self.elapsed_time = self.physics_steps * self.physics_period
        self.aviary_steps += 1
        if self.render:
            self._hold_real_time()

    def _hold_real_time(self) -> None:
        target = self.updates_per_step * self.physics_period
        spent = time.perf_counter() - self._last_wall_time
        if spent < target:
            time.sleep(target - spent)
        self._last_wall_time = time.perf_counter()

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Disconnect from PyBullet; safe to call twice."""
        if getattr(self, "_client", -1) >= 0:
            try:
                pybullet.disconnect(physicsClientId=self._client)
            except pybullet.error:
                pass
            self._client = -1

    def __enter__(self) -> Aviary:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def _shape_or_none(value) -> tuple[int, ...] | None:
    """``np.shape(value)``, or ``None`` where it has none (a ragged nest of lists)."""
    try:
        return np.shape(value)
    except ValueError:
        return None
