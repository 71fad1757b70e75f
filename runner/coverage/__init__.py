"""Coverage of step files from fixture runs: the static shape of a step file (`static`),
per-fixture traces combined per file (`combine`), and the report shapes (`report`)."""
