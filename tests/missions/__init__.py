"""Tests of pyflyt_like.missions."""
