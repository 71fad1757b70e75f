"""The `slow` marker: `-m "not slow"` leaves out every hypothesis test and the every-position
tests, and nothing else; `-m slow` selects them (as pytest itself collects them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FILES = ["tests/validator/test_validator_locality.py", "tests/language/test_completion_positions.py",
         "tests/validator/test_module_names_version.py"]


def collected(*marker: str) -> set[str]:
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", *marker, *FILES],
                         cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    return {line for line in out.stdout.splitlines() if "::" in line}


def test_not_slow_leaves_out_hypothesis_and_every_position_tests():
    everything, slow, quick = collected(), collected("-m", "slow"), collected("-m", "not slow")
    assert slow and quick and slow | quick == everything and not slow & quick
    assert any("test_completion_positions" in t for t in slow)
    plain = {t for t in everything if "test_module_names_version" in t}
    assert plain and plain <= quick  # plain tests stay
    assert not any("test_completion_positions" in t for t in quick)
    # in a module mixing both, slow is exactly what hypothesis calls its own tests
    import importlib.util

    import hypothesis

    spec = importlib.util.spec_from_file_location("locality", REPO / FILES[0])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    mixed = {t.rsplit("::", 1)[1] for t in everything if "test_validator_locality" in t}
    drawn = {n for n in mixed if hypothesis.is_hypothesis_test(getattr(mod, n))}
    assert drawn and drawn != mixed
    assert {t.rsplit("::", 1)[1] for t in slow if "test_validator_locality" in t} == drawn
