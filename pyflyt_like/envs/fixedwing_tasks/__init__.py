"""Fixed-wing tasks on both engines: ``Fixedwing-Reach-v0``'s options, compiled rules and
fused step, the batched VectorEnv, its PyBullet twin and the mode-2 autopilot baseline.
The rules are :mod:`pyflyt_like.rules.fixedwing_reach`."""
