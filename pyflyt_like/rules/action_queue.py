"""The delayed action of a task's agent: clipped, queued in a ring, released ``delay`` agent
steps later, and mapped to the flight mode's setpoint. Shared by the tasks of both
engines."""

from __future__ import annotations


def queue_action(action, low, high, last_action, pending, slot):
    """Clip ``action`` (k,) to [low, high] ((k,) each) into ``last_action`` (k,), write it
    to the ring ``pending`` (delay + 1, k) at ``slot`` and return the slot of the action due
    now (the one written ``delay`` steps ago; zeros at an episode's start)."""
    for a in range(action.shape[0]):
        value = min(max(action[a], low[a]), high[a])
        last_action[a] = value
        pending[slot, a] = value
    return (slot + 1) % pending.shape[0]


def to_setpoint(action, offset, scale, setpoint):
    """The flight mode's setpoint (k,) of a normalised ``action`` (k,): ``offset + scale
    action`` (the fixed-wing tasks' map:
    :func:`pyflyt_like.envs.base.vehicle_actions.fixedwing_action_mapping` gives ``offset``
    and ``scale``)."""
    for a in range(action.shape[0]):
        setpoint[a] = offset[a] + scale[a] * action[a]
