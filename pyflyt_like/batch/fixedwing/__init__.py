"""The fixed-wing family of the batched engine: lifting-surface aircraft in compiled
kernels, the twins of the PyBullet ``Fixedwing`` (docs/batch.md, "Fixed-wing aircraft")."""
