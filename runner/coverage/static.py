"""The shape of a step file as the workflow's pinned interpreter parses it: the analysis of
runner/codeshape.py, run here for this interpreter and in the interpreter's helper process
(pythons/checker.py) for another minor version's grammar."""

from __future__ import annotations

import functools

from stepsmith.runner.codeshape import StepFileShape, analyse_here, shape_from_data
from stepsmith.runner.pythons.checker import analysis, in_process


def analyse(source: str, interp=None) -> StepFileShape:
    """The shape of `source` (SyntaxError if it does not parse) as `interp` (a pythons.
    Interpreter, the workflow's pinned one; None: this one) parses it. Memoised per text: the
    editor asks again for the same ran text on every keystroke (a traced live run warms it off
    the server's event loop, server/fixture_runs.py)."""
    source = source.removeprefix("\ufeff")

    if in_process(interp):
        return analyse_here(source)
    return _analyse_with(source, interp)


@functools.lru_cache(maxsize=16)
def _analyse_with(source: str, interp) -> StepFileShape:
    return shape_from_data(analysis(interp, source))
