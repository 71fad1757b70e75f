"""stepsmith.runner: the harness — validator, manifest model, sandbox, fixtures, store, CLI.

Nothing in this package knows about LSP; `stepsmith.server` adapts it.
"""

from stepsmith import __version__  # one version, in stepsmith/__init__.py

__all__ = ["__version__"]
