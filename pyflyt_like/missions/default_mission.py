"""The mission ``pyflyt-like fly`` flies when given no file: embedded, nothing to set up."""

DEFAULT_MISSION_YAML = """
name: default
duration_limit: 40.0      # s
arrival_tolerance: 0.15   # m
vehicles:
  - name: quadx
    type: quadx           # PyFlyt's QuadX, flight mode 7 (position), setpoints led by v/k
    start: {position: [0.0, 0.0, 1.0]}
    speed: 0.3            # m/s mean along each leg
    waypoints:
      - [1.0, 0.0, 1.0]
      - [1.0, 1.0, 1.0]
      - {position: [0.0, 1.0, 1.5], yaw: 1.57, hold: 1.0}
      - [0.0, 0.0, 1.0]
  - name: crazyflie
    type: multirotor      # Crazyflie 2.1, geometric controller with min-snap feed-forward
    model: crazyflie21
    controller: geometric
    start: {position: [2.5, 0.0, 1.0]}
    speed: 0.8
    waypoints:
      - [3.5, 0.0, 1.2]
      - [3.5, 1.0, 1.2]
      - {position: [2.5, 1.0, 1.0], yaw: 3.14}
      - [2.5, 0.0, 1.0]
"""
