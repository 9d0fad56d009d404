"""Gymnasium tasks (registered as ``pyflyt_like/<Name>-v0`` on import) and PettingZoo scenes."""

from gymnasium.envs.registration import register

from .flatten_waypoint_env import FlattenWaypointEnv
from .ma_fixedwing_dogfight_env import MAFixedwingDogfightEnv
from .ma_quadx_hover_env import MAQuadXHoverEnv

__all__ = ["TASKS", "FlattenWaypointEnv", "MAFixedwingDogfightEnv", "MAQuadXHoverEnv"]

TASKS = {
    "QuadX-Hover": "quadx_hover_env:QuadXHoverEnv",
    "QuadX-Waypoints": "quadx_waypoints_env:QuadXWaypointsEnv",
    "QuadX-Pole-Balance": "quadx_pole_balance_env:QuadXPoleBalanceEnv",
    "QuadX-Pole-Waypoints": "quadx_pole_waypoints_env:QuadXPoleWaypointsEnv",
    "QuadX-Ball-In-Cup": "quadx_ball_in_cup_env:QuadXBallInCupEnv",
    "QuadX-Gates": "quadx_gates_env:QuadXGatesEnv",
    "Fixedwing-Waypoints": "fixedwing_waypoints_env:FixedwingWaypointsEnv",
    "Rocket-Landing": "rocket_landing_env:RocketLandingEnv",
}

for _name, _entry_point in TASKS.items():
    register(id=f"pyflyt_like/{_name}-v0", entry_point=f"pyflyt_like.envs.{_entry_point}")
