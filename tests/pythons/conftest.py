"""Fixtures of the pinned-Python suite; the helpers live in pythons_kit.py (a unique module
name: several test folders have a conftest.py)."""

from pythons_kit import isolated, py313  # noqa: F401
