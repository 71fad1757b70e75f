"""stepsmith.runner: the harness — validator, manifest model, sandbox, fixtures, store, CLI.

Nothing in this package knows about LSP; `stepsmith.server` adapts it.
"""

__version__ = "0.1.0"
