"""Trees built on several threads at once never fail (validator/astlock.py).

CPython 3.11 shares the AST converter's recursion count between threads (gh-106905): when a
garbage collection between two node allocations lets another thread convert too, one of them
fails with `SystemError: AST constructor recursion depth mismatch`. CI saw it as an
"internal error" of one fixture in `stepsmith test --coverage` (the pool validates and
analyses coverage on several threads). The stress here makes the race likely: a collection
every few allocations, each yielding the GIL. A control run of bare `ast.parse` under the same
stress shows the race exists on this interpreter; then stepsmith's parsers, run as many times
under the same stress, all on threads at once, must never meet it.
"""

from __future__ import annotations

import ast
import gc
import threading
import time

import pytest
from stepsmith.runner import pyparse
from stepsmith.runner.coverage import static
from stepsmith.runner.validator import engine

SOURCE = "\n".join(f"def f{i}(a, b):\n    return [x + {i} for x in a if x > b]\n"
                   for i in range(30))


class Stress:
    """Frequent collections, each giving the GIL away (what lets two conversions meet)."""

    def __enter__(self):
        self.thresholds = gc.get_threshold()
        gc.set_threshold(10, 1, 1)
        gc.callbacks.append(self._yield)
        return self

    @staticmethod
    def _yield(phase, info):
        time.sleep(0)

    def __exit__(self, *exc):
        gc.callbacks.remove(self._yield)
        gc.set_threshold(*self.thresholds)


def hammer(workers, *, calls: int | None = None, seconds: float = 20.0):
    """Runs each worker in its own thread until `calls` calls in all, `seconds`, or the
    first SystemError. Returns (calls made, the SystemErrors seen)."""
    errors: list[str] = []
    done = [0]
    stop = threading.Event()
    count = threading.Lock()

    def loop(work):
        i = 0
        while not stop.is_set():
            i += 1
            try:
                work(i)
            except SystemError as exc:
                errors.append(str(exc))
                stop.set()
            with count:
                done[0] += 1
                if calls is not None and done[0] >= calls:
                    stop.set()

    threads = [threading.Thread(target=loop, args=(w,)) for w in workers]
    with Stress():
        for t in threads:
            t.start()
        stop.wait(seconds)
        stop.set()
        for t in threads:
            t.join()
    return done[0], errors


def test_trees_built_on_several_threads_never_fail():
    control_calls, control = hammer([lambda i: ast.parse(SOURCE)] * 2)
    if not control:
        pytest.skip("this interpreter does not have the AST recursion-count race")
    assert "recursion depth mismatch" in control[0]

    big = SOURCE * 40  # above pyparse.WHOLE_BELOW: parsed chunk by chunk
    ours = [
        lambda i: pyparse.parse(SOURCE),
        lambda i: pyparse.parse_module(big),
        # a new text each call: the validator and the coverage analysis cache by text
        lambda i: engine.validate_whole_file(SOURCE + f"\n# {i}\n"),
        lambda i: static.analyse(SOURCE + f"\n# {i}\n"),
    ]
    target = 3 * control_calls
    calls, errors = hammer(ours, calls=target, seconds=90.0)
    assert errors == [], f"after {calls} calls (the control failed after {control_calls})"
    assert calls >= target, f"only {calls} calls in 90 s"


def test_pytest_parses_under_our_lock_too():
    """The suites call commands in-process, and the modules those import lazily on worker
    threads are rewritten by pytest's import hook, which parses: tests/conftest.py makes that
    parse take the AST lock. This fails when pytest's hook point moves (move the wrapper)."""
    from _pytest.assertion import rewrite
    from stepsmith.runner.validator.astlock import AST_LOCK

    assert rewrite._rewrite_test.__name__ == "_rewrite_test_locked"
    assert rewrite._rewrite_test.__globals__["AST_LOCK"] is AST_LOCK
