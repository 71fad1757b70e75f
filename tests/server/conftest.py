"""Fixtures for the language-server suite; the helpers live in lsp_kit.py (a unique module
name: several test folders have a conftest.py)."""

from lsp_kit import client, workspace  # noqa: F401
