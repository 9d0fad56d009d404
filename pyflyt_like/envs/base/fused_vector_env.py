"""The base of the vector tasks whose step is one compiled call over every world.

``Multirotor-*-v0``, ``Fixedwing-Reach-v0`` and ``Dogfight-v0`` run on a
:class:`~pyflyt_like.batch.BatchedAviary`: one compiled kernel per task applies each world's
actions, flies its physics steps, scores it and writes its observation, and restarts the
worlds whose episode ended at the step before (gymnasium's ``NEXT_STEP`` autoreset).
:class:`FusedVectorEnv` holds what they share: the kernel bound once to its arguments'
types (numba would otherwise type about a hundred arrays at every call), its loop over the
worlds on one thread or several (:class:`~pyflyt_like.batch.threads.WorldLoop`), the
autoreset bookkeeping, and the public per-world views :attr:`~FusedVectorEnv.ended` and
:attr:`~FusedVectorEnv.restarting` (what a recorder such as the Tacview one reads).

Every task kernel has the signature::

    kernel(state, plant, nominal, config, noise, task, params, *stages,
           actions, restart, play, observation, reward, terminated, truncated, first, last)

for the worlds ``first <= w < last``: those of ``restart`` ((W,) bool) start a new episode
(reward 0, neither terminated nor truncated); with ``play`` the others apply their
``actions`` (finite: checked before the call) and play one agent step. ``stages`` are the
task's own (none for most): arguments that are None where the task does without a stage, so
that numba compiles its step without that code.
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import VectorEnv

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch.arrays import TURBULENCE_STATES
from pyflyt_like.batch.threads import WorldLoop
from pyflyt_like.compiled.jit import bound_entry


class FusedVectorEnv(VectorEnv):
    """A VectorEnv stepped by one compiled task kernel over the worlds of ``self.sim``.

    A subclass builds ``self.sim``, its task arrays and its ``_actions``, ``_observation``,
    ``_reward`` buffers, then calls :meth:`_bind_kernel`; its ``reset`` runs
    :meth:`_run_kernel` with ``play=False`` on the worlds to restart, its ``step``
    :meth:`_play`.
    """

    sim: BatchedAviary

    def _bind_kernel(self, kernel, task, params, physics_steps: int, stages: tuple = ()) -> None:
        """Bind ``kernel`` (module docstring) to this env's arrays: the engine's, its
        ``task`` arrays, ``params`` and ``stages``, and the buffers ``_actions``,
        ``_observation`` and ``_reward``. ``physics_steps`` per agent step and drone sets
        when the worlds are split among threads."""
        n = self.sim.n_worlds
        self._terminated = np.zeros(n, bool)
        self._truncated = np.zeros(n, bool)
        self._ended = np.zeros(n, bool)
        self._restart = np.zeros(n, bool)
        self._all = np.ones(n, bool)
        no_noise = np.zeros((1, 1, TURBULENCE_STATES))  # the turbulence input: none here
        self._kernel_arguments = (*self.sim.kernel_arguments, no_noise, task, params, *stages)
        entry = bound_entry(kernel, *self._kernel_arguments, self._actions, self._restart,
                            True, self._observation, self._reward, self._terminated,
                            self._truncated, 0, n)
        self._loop = WorldLoop(entry, n, work_per_world=self.sim.n_drones * physics_steps)
        self._ended_view = self._ended.view()
        self._ended_view.flags.writeable = False
        self._restart_view = self._restart.view()
        self._restart_view.flags.writeable = False

    @property
    def ended(self) -> np.ndarray:
        """(W,) bool, read-only: the worlds whose episode ended at the last step
        (terminated or truncated)."""
        return self._ended_view

    @property
    def restarting(self) -> np.ndarray:
        """(W,) bool, read-only: the worlds that start a new episode at the next step
        instead of playing it (those that :attr:`ended`, until then)."""
        return self._restart_view

    def _run_kernel(self, restart: np.ndarray, play: bool) -> None:
        """One call of the kernel: the worlds of ``restart`` start a new episode; with
        ``play`` the others play ``_actions`` (finite)."""
        self._before_kernel(restart)
        self._loop(*self._kernel_arguments, self._actions, restart, play, self._observation,
                   self._reward, self._terminated, self._truncated)

    def _before_kernel(self, restart: np.ndarray) -> None:
        """What the engine does outside the kernel for the worlds about to ``restart``: the
        in-kernel reset keeps the plant, so a randomised one is drawn here."""
        sim = self.sim
        if sim.randomize and restart.any():
            sim.family.draw_plant(sim.rng, sim.plant, np.flatnonzero(restart))

    def _restart_worlds(self, mask: np.ndarray) -> None:
        """Start a new episode in the worlds of ``mask`` ((W,) bool) now (a reset)."""
        self._run_kernel(mask, play=False)
        self._restart &= ~mask
        self._ended &= ~mask

    def _play(self) -> None:
        """One agent step of every world on ``_actions``: the worlds that ended at the last
        step restart instead (autoreset)."""
        restart = self._restart.copy()
        self._run_kernel(restart, play=True)
        np.logical_or(self._terminated, self._truncated, out=self._ended)
        self._restart[:] = self._ended
