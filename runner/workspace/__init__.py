"""The workspace: which workflows exist and which files belong to them (see discovery)."""
