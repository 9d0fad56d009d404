"""The fixed-wing dogfight on both engines: options and spaces (one home), the PettingZoo
scene (:mod:`.scene`, PyBullet), the compiled rules and fused step, the batched
``Dogfight-v0`` VectorEnv, the scripted pursuit pilot and the Tacview recorders of both."""
