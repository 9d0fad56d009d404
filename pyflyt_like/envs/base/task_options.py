"""The options every task on both engines takes besides its vehicle's: episode length,
action delay, observation noise and seed, checked once for all such tasks."""

from __future__ import annotations

from typing import Any

from pyflyt_like.common.validation import (
    check_int,
    check_non_negative_float,
    check_positive_float,
    check_seed,
)

MAX_DURATION_SECONDS = 3600.0  # an hour: a longer time limit is no limit
MAX_ACTION_DELAY_STEPS = 1000  # the ring of pending actions is (delay + 1, k) per world
#: What a PyBullet twin can randomise of its vehicle (the batched engine draws more).
TWIN_RANDOMIZE_KEYS = ("mass", "inertia")


def check_twin_randomize(randomize: dict | None) -> None:
    """Refuse the ``randomize`` keys (already checked by the engine's rules) that a PyBullet
    twin cannot apply.

    Raises:
        ValueError: naming them and the keys a twin randomises.
    """
    unsupported = sorted(set(randomize or {}) - set(TWIN_RANDOMIZE_KEYS))
    if unsupported:
        raise ValueError(f"randomize keys {unsupported} are drawn by the batched engine "
                         f"only; the PyBullet twin randomises {list(TWIN_RANDOMIZE_KEYS)}")


def check_duration(value: object, name: str = "max_duration_seconds") -> float:
    """Return an episode length [s] in (0, :data:`MAX_DURATION_SECONDS`] as a float: the one
    bound of every env's ``max_duration_seconds`` (an hour at 10 kHz is 3.6e7 steps, so the
    step count of :func:`episode_steps` is an int far inside int64; 1e308 s would overflow
    it).

    Raises:
        TypeError: not a real number (a bool, a string).
        ValueError: NaN, infinite, <= 0 or above the bound, naming ``name``.
    """
    duration = check_positive_float(name, value)
    if duration > MAX_DURATION_SECONDS:
        raise ValueError(f"{name} must be at most {MAX_DURATION_SECONDS:g} s (an hour), got "
                         f"{duration!r}")
    return duration


def episode_steps(duration: float, agent_hz: int) -> int:
    """Agent steps of an episode of ``duration`` [s] (checked by :func:`check_duration`) at
    ``agent_hz`` [Hz]: rounded, at least one (a duration shorter than one agent step gives
    one-step episodes)."""
    return max(1, round(duration * agent_hz))


def check_episode_options(max_duration_seconds: object, action_delay_steps: object,
                          observation_noise: object, seed: object) -> dict[str, Any]:
    """The checked values by name (``max_duration_seconds`` None stays None: the task's).

    Raises:
        TypeError, ValueError: naming the option and what is allowed.
    """
    checked: dict[str, Any] = {"max_duration_seconds": None}
    if max_duration_seconds is not None:
        checked["max_duration_seconds"] = check_duration(max_duration_seconds)
    delay = check_int("action_delay_steps", action_delay_steps)
    if not 0 <= delay <= MAX_ACTION_DELAY_STEPS:
        raise ValueError(f"action_delay_steps must be an int in [0, {MAX_ACTION_DELAY_STEPS}] "
                         f"(agent steps), got {delay}")
    checked["action_delay_steps"] = delay
    checked["observation_noise"] = check_non_negative_float("observation_noise",
                                                            observation_noise)
    checked["seed"] = check_seed("seed", seed)
    return checked
