"""Use cases shared by the CLI and the language server (one implementation, two edges)."""
