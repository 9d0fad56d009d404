"""The multirotor tasks, each written once over arrays of W worlds (hover, reach, track,
land on their common base)."""
