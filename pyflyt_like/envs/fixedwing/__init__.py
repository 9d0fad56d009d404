"""The fixed-wing tasks: the family base and Fixedwing-Waypoints (PyBullet, PyFlyt's), and
``Fixedwing-Reach-v0`` on both engines: its options, compiled rules and fused step, the
batched VectorEnv, its PyBullet twin and the mode-2 autopilot baseline. The rules are
:mod:`pyflyt_like.rules.fixedwing_reach`."""
