"""The PettingZoo scenes (QuadX hover, fixed-wing dogfight) and the dogfight rules."""
