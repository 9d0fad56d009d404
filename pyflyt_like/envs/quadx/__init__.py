"""The QuadX tasks (hover, waypoints, pole balance, pole waypoints, ball in cup, gates) and
their scene helpers (pole, mounted cup, tethered ball, gate course, hover reward).
"""
