"""code_lenses(snapshot, path) -> list[Lens]: over each step function of a step file, the
step it implements (of every manifest naming the file) and how many fixtures it has. Pure; the
server adds the last run's counts and the command."""

from __future__ import annotations

from dataclasses import dataclass

from stepsmith.runner.workspace.fixtures import fixture_files


@dataclass(frozen=True)
class Lens:
    manifest: str  # the manifest's path
    step_id: str
    function: str
    line: int  # 1-based line of the `def`
    fixtures: int

    @property
    def title(self) -> str:
        n = self.fixtures
        return f"▶ Run {n} fixture{'s' if n != 1 else ''}" + (
            f" ({self.step_id})" if self.step_id != self.function else "")


def code_lenses(snapshot, path: str) -> list[Lens]:
    if not path.endswith(".py"):
        return []
    text = snapshot.read_text(path)
    if text is None or len(text) > snapshot.max_file_size:
        return []
    spans = {f.name: f for f in snapshot.functions(path)}
    out = []
    for st in snapshot.steps_using(path):
        f = spans.get(st.code.function) if st.code is not None else None
        if f is None or not st.id:
            continue
        out.append(Lens(st.manifest, st.id, f.name, f.line,
                        len(fixture_files(st.manifest, st.id))))
    return out
