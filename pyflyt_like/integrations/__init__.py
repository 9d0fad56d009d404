"""Bridges to other frameworks; each module imports its framework lazily or on import of
that module only, so ``import pyflyt_like`` never needs them."""
