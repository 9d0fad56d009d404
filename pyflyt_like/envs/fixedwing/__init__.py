"""The fixed-wing tasks: the family base and Fixedwing-Waypoints."""
