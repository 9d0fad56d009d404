"""The L2F side of ``bench_l2f.py``: run inside the side venv that has ``l2f`` (RLtools'
"Learning to Fly" simulator), never in this package's Python.

It imports only ``l2f``, ``numpy`` and the standard library, and answers JSON lines on
stdin, one JSON line each on stdout:

    {"cmd": "info"}
        -> {"l2f_version", "observation_dim", "action_dim", "episode_step_limit",
            "omp_max_threads"}
    {"cmd": "measure", "num_envs": N, "seconds": S, "seed": K, "warmup_steps": M}
        -> {"num_envs", "steps", "seconds", "rate" [env-steps/s], "ends"}
    {"cmd": "quit"}

One env step here is what the L2F Python bindings' own stable-baselines3 wrapper
(``l2f/wrappers/sb3.py``) does per step, minus its per-env Python loop that builds info
dicts: ``vector.step`` (one 100 Hz RK4 physics step of a Crazyflie from four normalised
rotor commands in [-1, 1]), ``vector.reward``, ``vector.terminated`` (evaluated on the state
after the step), a step counter truncating at ``EPISODE_STEP_LIMIT`` (500 = 5 s) in numpy,
then for the ended envs ``sample_initial_parameters_if_truncated`` and
``sample_initial_state_if_truncated`` (L2F's Python API has no autoreset: this is how its
wrapper resets ended envs, in the same step), and ``vector.observe`` of every env (one
observation pass per step; the wrapper's second pass, for the terminal observation, is not
done). ``state`` and ``next_state`` swap roles each step instead of the wrapper's
``states.assign(next_states)`` copy, which gives L2F its fastest correct loop.

The threads are L2F's OpenMP threads (every vector call is an ``omp parallel for``): set
``OMP_NUM_THREADS`` in this process's environment to choose them.

Usage (normally started by bench_l2f.py): /tmp/l2f-venv/bin/python benchmarks/l2f_worker.py
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import sys
import time
from importlib import metadata

import numpy as np

try:
    import l2f
except ImportError:  # the benchmark reports this line and how to install l2f
    print(json.dumps({"error": "l2f is not importable in this Python; create the venv: "
                               "python3 -m venv /tmp/l2f-venv && "
                               "/tmp/l2f-venv/bin/pip install l2f numpy"}), flush=True)
    sys.exit(2)

ACTION_BANK = 16  # distinct random action arrays cycled through, drawn before timing


def _omp_max_threads() -> int | None:
    """OpenMP's thread count for the next parallel region (None if libgomp is not found).

    l2f's extension links libgomp; loading it again by name returns the same library."""
    name = ctypes.util.find_library("gomp") or "libgomp.so.1"
    try:
        return int(ctypes.CDLL(name).omp_get_max_threads())
    except (OSError, AttributeError):
        return None


class L2FBatch:
    """``num_envs`` L2F environments in one ``l2f.vector<N>`` module, stepped together.

    Args:
        num_envs: one of the sizes the bindings compiled (powers of two, 1 to 8192).
        seed: seed of L2F's per-env generators (env i gets seed + i).
    """

    def __init__(self, num_envs: int, seed: int):
        if num_envs not in l2f.vector_selector:
            raise ValueError(f"num_envs must be one of {sorted(l2f.vector_selector)} (the "
                             f"sizes the l2f bindings compile), got {num_envs}")
        v = self.vector = l2f.vector_selector[num_envs]
        self.device = l2f.Device()
        self.rng = v.VectorRng()
        v.initialize_rng(self.device, self.rng, seed)
        self.env = v.VectorEnvironment()
        v.initialize_environment(self.device, self.env)
        self.params = v.VectorParameters()
        v.sample_initial_parameters(self.device, self.env, self.params, self.rng)
        self.state, self.next_state = v.VectorState(), v.VectorState()
        v.sample_initial_state(self.device, self.env, self.params, self.state, self.rng)
        self.observation = np.empty((num_envs, self.env.OBSERVATION_DIM), np.float32)
        v.observe(self.device, self.env, self.params, self.state, self.observation, self.rng)
        self.reward = np.empty(num_envs, np.float32)
        self.terminated = np.empty(num_envs, bool)
        self.episode_step = np.zeros(num_envs, np.int32)
        self.limit = self.env.EPISODE_STEP_LIMIT

    def step(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                np.ndarray]:
        """One env step of every env with (N, 4) float32 C-contiguous ``action``.

        Returns observation (N, OBSERVATION_DIM) float32 (after the resets), reward (N,),
        terminated (N,) bool, truncated (N,) bool; the arrays are reused."""
        v, d, env, params, rng = self.vector, self.device, self.env, self.params, self.rng
        state, next_state = self.state, self.next_state
        v.step(d, env, params, state, action, next_state, rng)
        v.reward(d, env, params, state, action, next_state, self.reward, rng)
        v.terminated(d, env, params, next_state, self.terminated, rng)
        self.episode_step += 1
        truncated = (self.episode_step >= self.limit) & ~self.terminated
        done = self.terminated | truncated
        if done.any():  # as ours, which restarts only when some env ended
            v.sample_initial_parameters_if_truncated(d, env, params, done, rng)
            v.sample_initial_state_if_truncated(d, env, params, next_state, done, rng)
            self.episode_step[done] = 0
        v.observe(d, env, params, next_state, self.observation, rng)
        self.state, self.next_state = next_state, state
        return self.observation, self.reward, self.terminated, truncated


def measure(batches: dict[int, L2FBatch], num_envs: int, seconds: float, seed: int,
            warmup_steps: int) -> dict:
    """Env-steps/s of ``num_envs`` envs over at least ``seconds`` [s] (and 3 steps), after
    ``warmup_steps`` untimed steps; the batch persists across calls (episodes go on)."""
    if num_envs not in batches:
        batches[num_envs] = L2FBatch(num_envs, seed)
    batch = batches[num_envs]
    # the same draw as ours in bench_l2f.py: the same generator, seed and shape
    actions = np.random.default_rng(seed).uniform(-1.0, 1.0, (ACTION_BANK, num_envs, 4))
    actions = np.ascontiguousarray(actions, np.float32)
    for i in range(warmup_steps):
        batch.step(actions[i % ACTION_BANK])
    steps = ends = 0
    cpu_start, start = time.process_time(), time.perf_counter()
    while True:
        _, _, terminated, truncated = batch.step(actions[steps % ACTION_BANK])
        ends += np.count_nonzero(terminated) + np.count_nonzero(truncated)
        steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and steps >= 3:
            break
    return {"num_envs": num_envs, "steps": steps, "seconds": elapsed,
            "rate": steps * num_envs / elapsed, "ends": int(ends),
            "cpu": (time.process_time() - cpu_start) / elapsed}


def main() -> None:
    batches: dict[int, L2FBatch] = {}
    for line in sys.stdin:
        request = json.loads(line)
        command = request.get("cmd")
        try:
            if command == "info":
                probe = L2FBatch(8, 0)
                probe.step(np.zeros((8, 4), np.float32))  # starts OpenMP's pool
                reply = {"l2f_version": metadata.version("l2f"),
                         "observation_dim": probe.env.OBSERVATION_DIM,
                         "action_dim": probe.env.ACTION_DIM,
                         "episode_step_limit": probe.limit,
                         "omp_max_threads": _omp_max_threads()}
            elif command == "measure":
                reply = measure(batches, int(request["num_envs"]), float(request["seconds"]),
                                int(request["seed"]), int(request["warmup_steps"]))
            elif command == "quit":
                return
            else:
                reply = {"error": f"unknown cmd {command!r}; known: info, measure, quit"}
        except (ValueError, KeyError, RuntimeError) as error:
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
