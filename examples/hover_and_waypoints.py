"""Hover one QuadX for a second, then fly it through three waypoints in position mode (7)."""

import numpy as np

from pyflyt_like.core import Aviary

# x, y, yaw, z: mode 7's setpoint order
waypoints = np.array([[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.57, 1.5],
                      [0.0, 0.0, 0.0, 1.0]])

with Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)), seed=0) as env:
    env.set_mode(7)  # the setpoint is preset to the current pose: the drone hovers
    for waypoint in waypoints:
        env.set_setpoint(0, waypoint)
        for _ in range(3 * 120):  # 3 s per waypoint; one step() is 1/120 s
            env.step()
        state = env.state(0)  # rows: body rates, Euler angles, body velocity, position
        error = np.linalg.norm(state[3] - waypoint[[0, 1, 3]])
        throttles = np.round(env.aux_state(0), 3)  # QuadX aux_state: motor throttles
        print(f"t = {env.elapsed_time:4.1f} s  position {np.round(state[3], 3)}  "
              f"yaw {state[1, 2]:+.2f} rad  error {error:.3f} m  throttles {throttles}")
