"""The PyBullet side of a Multirotor task: one Multirotor in an Aviary (the twin's engine,
and the VectorEnv's picture of world 0)."""

from __future__ import annotations

import numpy as np

from pyflyt_like.batch.randomization import check_randomize
from pyflyt_like.common.sensor_readings import READINGS_SIZE, pack_readings
from pyflyt_like.core import Aviary
from pyflyt_like.physics.contact import CRASH_SPEED

from ..base.task_options import check_twin_randomize


class PyBulletDrone:
    """One :class:`~pyflyt_like.core.drones.Multirotor` flown by an :class:`Aviary`, its
    state read into (3,) / (4,) arrays for the task's rules.

    Args:
        drone_model: the multirotor YAML's name.
        mode: the flight mode (-1, 0 or 1).
        physics_hz: physics and controller rate [Hz] (one Aviary step per physics step).
        randomize: None, or ranges for ``mass`` and ``inertia`` (factors, as the batched
            engine's), applied with ``changeDynamics`` at every reset.
        render: open PyBullet's GUI.
        sensors: the sensor configuration mounted on the drone (``drone_options["sensors"]``),
            or None; :meth:`reset` and :meth:`step` then lay its latest readings out in
            ``sensed`` (:mod:`pyflyt_like.common.sensor_readings`), and a LiDAR's latest
            ranges flat in ``ranges`` [m].

    Attributes:
        crashed: whether the last :meth:`step` collided, as the batched engine's crash flag:
            a contact with an obstacle of :meth:`use_world`, or with the floor while
            falling faster than :data:`CRASH_SPEED`.
    """

    def __init__(self, drone_model: str, mode: int, physics_hz: int, randomize: dict | None,
                 render: bool = False, sensors: dict | None = None):
        self.randomize = check_randomize(randomize)
        check_twin_randomize(self.randomize)
        self.aviary = Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)),
                             drone_type="multirotor", physics_hz=physics_hz,
                             drone_options=dict(drone_model=drone_model, control_hz=physics_hz,
                                                sensors=sensors),
                             render=render, seed=0)
        self.drone = self.aviary.drones[0]
        self.model = self.drone.model
        self.gravity = self.aviary.gravity
        self.mode = mode
        self.aviary.set_mode(mode)
        self.pos, self.quat = np.zeros(3), np.array((0.0, 0.0, 0.0, 1.0))
        self.vel, self.ang_vel = np.zeros(3), np.zeros(3)
        self.sensed = np.zeros(READINGS_SIZE)
        self.ranges = np.zeros(0)
        self.crashed = False
        self._sensors = sensors

    def reset(self, start_pos: np.ndarray, start_euler: np.ndarray, seed: int,
              rng: np.random.Generator) -> None:
        """Put the drone at rest at ``start_pos`` (3,) [m] with Euler angles ``start_euler``
        (3,) [rad]; ``seed`` reseeds the aviary, ``rng`` draws the randomised mass and
        inertia."""
        drone, aviary = self.drone, self.aviary
        drone.start_pos = np.array(start_pos, float)
        drone.start_orn = aviary.getQuaternionFromEuler(np.asarray(start_euler).tolist())
        aviary.reset(seed=seed)
        aviary.set_mode(self.mode)
        if self.randomize:
            self._randomize(rng)
        self._read()

    def _randomize(self, rng: np.random.Generator) -> None:
        mass, inertia = self.model.mass, np.array(self.model.inertia, float)
        if "mass" in self.randomize:
            mass *= rng.uniform(*self.randomize["mass"])
        if "inertia" in self.randomize:
            inertia *= rng.uniform(*self.randomize["inertia"], size=3)
        self.aviary.changeDynamics(self.drone.Id, -1, mass=mass,
                                   localInertiaDiagonal=inertia.tolist())

    def step(self, setpoint: np.ndarray, n_steps: int) -> None:
        """Hold ``setpoint`` (k,) for ``n_steps`` physics steps (a non-finite PyBullet
        state raises :class:`~pyflyt_like.common.validation.NumericalError`), noting a
        collision in :attr:`crashed`."""
        aviary, drone = self.aviary, self.drone.Id
        aviary.set_setpoint(0, setpoint)
        self.crashed = False
        for _ in range(n_steps):
            aviary.step()
            contacts = aviary.contact_array
            if not self.crashed and contacts[drone].any():
                falling = -self.drone.world_velocity[2] > CRASH_SPEED
                self.crashed = (any(contacts[drone, body] for body in aviary.world_body_ids)
                                or (falling and contacts[drone, aviary.planeId]))
        self._read()

    def use_world(self, world) -> None:
        """Fly among ``world`` (a :class:`~pyflyt_like.worlds.World`) from the next
        :meth:`reset` on (:meth:`~pyflyt_like.core.Aviary.use_world`)."""
        self.aviary.use_world(world)

    def _read(self) -> None:
        drone = self.drone
        self.pos[:] = drone.state[3]
        self.quat[:] = drone.quaternion
        self.vel[:] = drone.world_velocity
        self.ang_vel[:] = drone.state[0]
        if self._sensors:
            readings = self.aviary.read_sensors(0)
            pack_readings(readings, self.sensed)
            if "lidar" in readings:
                self.ranges = readings["lidar"]["ranges"].reshape(-1)

    def show(self, pos: np.ndarray, quat: np.ndarray) -> None:
        """Place the drone at ``pos`` (3,) [m] with ``quat`` (4,) (x, y, z, w), for pictures."""
        self.aviary.resetBasePositionAndOrientation(self.drone.Id, pos.tolist(), quat.tolist())

    def close(self) -> None:
        self.aviary.close()
