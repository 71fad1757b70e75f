"""validator/module_names.py is what the interpreters say (pythons/module_table.py asks them):
every interpreter here, 3.11 (running) and 3.13 (built) at least, gives exactly the table's
names for its version. Regenerate with `python -m stepsmith.runner.pythons.module_table
--write PYTHON...` when a new version is added."""

from __future__ import annotations

import glob
import os

from stepsmith.runner.pythons import module_table, probe
from stepsmith.runner.validator import module_names


def table_view(minor: int) -> dict[str, list[str]]:
    out = {}
    for module, always in module_names.ALWAYS.items():
        names = set(always)
        for name, (first, last) in module_names.CHANGED.get(module, {}).items():
            if first <= minor <= last:
                names.add(name)
        out[module] = sorted(names)
    return out


def interpreters(py313: str) -> dict[int, str]:
    found = {probe.running().version[1]: probe.running().exe, 13: py313}
    for cand in glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-9]*/bin/python3.1*")):
        try:
            i = probe.probe(cand)
        except probe.ProbeFailed:
            continue
        found.setdefault(i.version[1], cand)
    return {m: exe for m, exe in found.items() if m in module_names.VERSIONS}


def test_the_table_is_what_each_interpreter_says(py313):
    exes = interpreters(py313)
    assert {11, 13} <= set(exes), exes
    for minor, exe in exes.items():
        said_minor, said = module_table.ask(exe)
        assert said_minor == minor
        assert said == table_view(minor), (minor, exe)


def test_the_written_table_is_the_rendering_of_the_answers(py313):
    """The checked-in file is exactly what `--write` produces for these answers (no hand edit):
    rendered from the interpreters here, plus the table's own view of a version missing here."""
    exes = interpreters(py313)
    seen = {minor: table_view(minor) for minor in module_names.VERSIONS}
    seen.update(dict(module_table.ask(exe) for exe in exes.values()))
    assert module_table.render(seen) == module_table.TARGET.read_text()
