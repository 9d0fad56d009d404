"""Helpers shared by the core: validation, model loading, rotations."""
