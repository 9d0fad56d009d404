"""The fixed-wing dogfight on both engines: options and spaces (one home), the compiled
rules and fused step, the batched ``Dogfight-v0`` VectorEnv, the scripted pursuit pilot.
The PettingZoo scene is :mod:`pyflyt_like.envs.multi_agent.fixedwing_dogfight`."""
