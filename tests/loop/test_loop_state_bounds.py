"""A workflow's run state (`.stepsmith/lastfailed.json`, `durations.json`, `stepwise.json`, a
`--durations-path` file) may come with a cloned folder: each is read with a size and a depth
bound, and one that cannot be used (200,000 levels deep, not JSON, too large, a symlink) is
ignored with a warning naming it; the run goes on as without it. Deep JSON used to end the run
with "internal error: RecursionError". Real `stepsmith test` processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from stepsmith.runner.fixtures import lastfailed, shard, stepwise

pytestmark = pytest.mark.usefixtures("sandbox")

DEEP = "[" * 200_000 + "]" * 200_000
BIN = Path(sys.executable).parent / "stepsmith"
STATE = {  # file -> (the options that read it, its size cap)
    "lastfailed.json": (("--lf",), lastfailed.MAX_BYTES),
    "stepwise.json": (("--sw",), stepwise.MAX_BYTES),
    "durations.json": (("--shard", "1/1"), shard.MAX_BYTES),
}


def deep(cap: int) -> str:
    """As deep as the cap allows, up to 200,000 levels (far past json's recursion limit)."""
    n = min(200_000, cap // 2)
    return "[" * n + "]" * n


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), "test", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.fixture
def wf(tmp_path, kit):
    kit.write_workflow(tmp_path / "wf", fixtures={
        "add/simple": kit.add_case("1.00", None, "1.50"),
        "add/both": kit.add_case("1.00", "2.25", "3.25")})
    (tmp_path / "wf" / ".stepsmith").mkdir()
    return tmp_path


def _ignored(done: subprocess.CompletedProcess, shown: str, why: str) -> None:
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0 and "2 passed" in done.stdout + done.stderr, done.stdout
    (line,) = [ln for ln in done.stderr.splitlines() if "StateFileWarning" in ln]
    assert shown in line and why in line, done.stderr


@pytest.mark.parametrize("name", sorted(STATE))
@pytest.mark.parametrize("bad,why", [
    (deep, "nested more than 64 levels deep"),
    (lambda cap: '{"failed": [', "not JSON"),
    (lambda cap: " " * (cap + 1), "larger than"),
], ids=["deep", "corrupt", "huge"])
def test_a_bad_state_file_is_ignored_with_a_warning(wf, name, bad, why):
    options, cap = STATE[name]
    assert len(deep(cap)) // 2 > 10 * sys.getrecursionlimit()  # json alone would fail
    (wf / "wf" / ".stepsmith" / name).write_text(bad(cap))
    _ignored(run(wf, *options, "wf"), f"wf/.stepsmith/{name}", why)


def test_a_deep_durations_path_is_ignored_with_a_warning(wf):
    (wf / "durations.json").write_text(DEEP)
    done = run(wf, "--shard", "1/1", "--durations-path", "durations.json", "wf")
    _ignored(done, "durations.json", "nested more than 64 levels deep")


def test_good_state_is_still_used_and_written_back(wf):
    assert run(wf, "wf").returncode == 0
    state = wf / "wf" / ".stepsmith"
    assert json.loads((state / "lastfailed.json").read_text()) == {"failed": []}
    assert set(json.loads((state / "durations.json").read_text())) == {"add::both", "add::simple"}
    (state / "lastfailed.json").write_text(DEEP)
    done = run(wf, "--lf", "wf")
    assert done.returncode == 0 and "StateFileWarning" in done.stderr
    assert json.loads((state / "lastfailed.json").read_text()) == {"failed": []}  # replaced
    done = run(wf, "--lf", "wf")
    assert done.returncode == 0 and "StateFileWarning" not in done.stderr, done.stderr
