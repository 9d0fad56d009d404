"""The rocket tasks: the family base and Rocket-Landing."""
