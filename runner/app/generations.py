"""Which run of a step file is current, and the sandboxes of every run in progress: the
book-keeping of the editor's runs (run-on-save, run-on-type, the run commands).

A newer edit or save of a file bumps its generation: every older run of that file is
superseded, its sandboxes are killed at once (not when its next fixture ends: a spinning step
would hold them to the wall limit) and it reports nothing. `groups` holds the sandbox group of
every run in progress (the mutants' runs register theirs too), so a shutdown kills them all.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from stepsmith.runner.sandbox.process import Group

if TYPE_CHECKING:
    from stepsmith.runner.sandbox.process import Group

#: a run's generation: (the step file whose edit started it, its generation then)
Generation = tuple[str, int]


class Generations:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.groups: set[Group] = set()  # sandbox groups of the runs in progress
        self._current: dict[str, int] = {}  # step file -> its newest generation
        self._groups_of: dict[str, set[Group]] = {}  # step file -> groups of its runs

    def bump(self, path: str) -> Generation:
        """A newer edit/save of `path`: its older runs are superseded, their sandboxes
        killed now."""
        with self.lock:
            g = self._current.get(path, 0) + 1
            self._current[path] = g
            older = self._groups_of.pop(path, set())
        for group in older:
            group.kill()
        return path, g

    def current(self, gen: Generation | None) -> bool:
        """Is this run still the newest of its file (a command's run, gen None, always is)?"""
        return gen is None or self._current.get(gen[0]) == gen[1]

    def start(self, gen: Generation | None) -> Group:
        """The sandbox group of a new run, registered (killed at once when `gen` is already
        superseded)."""
        # the sandbox's start-up modules load with the first run, not with the server
        group = Group()
        self.groups.add(group)
        if gen is not None:
            with self.lock:
                if not self.current(gen):
                    group.kill()  # superseded before it started
                self._groups_of.setdefault(gen[0], set()).add(group)
        return group

    def end(self, gen: Generation | None, group: Group) -> None:
        self.groups.discard(group)
        if gen is not None:
            with self.lock:
                self._groups_of.get(gen[0], set()).discard(group)

    def kill_all(self) -> None:
        for group in list(self.groups):
            group.kill()
