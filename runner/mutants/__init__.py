"""Fixture strength: small changes to a step's code (operators.py, decimals.py), made as text edits that
keep positions (apply.py) and checked by the dialect validator (generate.py), judged by the
fixtures that reach them (select.py) through the suite's engine (runner/app/mutants.py),
reported as typed records (verdicts.py) and cached (cache.py)."""
