"""SS106 (a name an allowed module lacks in the pinned Python) looks up names, not syntax: a
star import is SS104's problem alone (one cause, one report)."""

from stepsmith.runner.validator import validate


def codes(src: str, python: str = "3.11") -> list[str]:
    return [p.code for p in validate(src, python=python)]


def test_a_star_import_is_reported_once_as_a_star_import():
    assert codes("from math import *\n\n\ndef f(x):\n    return x\n") == ["SS104"]
    assert codes("from statistics import *\n", python="3.13") == ["SS104"]


def test_a_named_import_is_still_looked_up():
    assert codes("from math import fma\n") == ["SS106"]
    assert codes("from math import floor\n") == []
