"""The engines under the multirotor tasks: the batched engine (the VectorEnv) and PyBullet
(the twin), both seen as W drones."""
