"""Courses of targets shared by the QuadX and fixed-wing tasks: the waypoint targets and the
waypoint task, the target-delta observation layouts, and ``FlattenWaypointEnv``.
"""
