"""`stepsmith review` in a real pseudo-terminal (single keys), and kill -9 at random points of
`review --accept` / `test --update`: never a half-written fixture, never a lost pending change."""

import json
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")

CLI = [sys.executable, "-m", "stepsmith.runner.cli"]


def many_failing(kit, root, n):
    fx = {f"add/c{i:02d}": kit.add_case(f"{i}.00", None, f"{i}.5") for i in range(n)}
    return kit.write_workflow(root, fixtures=fx)


def run_in_pty(argv, keys_after: list[tuple[str, str]], cwd, timeout=60) -> tuple[int, str]:
    """Run argv on a pty; for each (prompt text, key) wait for the text then press the key."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                         close_fds=True, env={**os.environ, "COLUMNS": "200"})
    os.close(slave)
    seen = full = b""
    deadline = time.monotonic() + timeout
    pending = list(keys_after)
    try:
        while time.monotonic() < deadline:
            if pending and pending[0][0].encode() in seen:
                seen = seen.split(pending[0][0].encode(), 1)[1]
                os.write(master, pending.pop(0)[1].encode())
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the child closed the pty
                    break
                if not chunk:
                    break
                seen += chunk
                full += chunk
            elif p.poll() is not None:
                break
        code = p.wait(timeout=10)
    finally:
        os.close(master)
        if p.poll() is None:
            p.kill()
    return code, full.decode("utf-8", "replace")


def test_interactive_review_single_keys(tmp_path, kit):
    wf = many_failing(kit, tmp_path / "wf", 3)
    subprocess.run(CLI + ["test", str(wf)], capture_output=True, timeout=120, check=False)
    code, text = run_in_pty(CLI + ["review", str(wf)],
                            [("uit ?", "a"), ("uit ?", "r"), ("uit ?", "s")], tmp_path)
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert code == 0, text
    assert 'expected.output.sum: expected "0.5", got "0.50"' in text
    assert "accepted 1, rejected 1, skipped 1" in text
    assert json.loads((wf / "fixtures/add/c00.json").read_text())["expected"]["output"] == {
        "sum": "0.50"}
    assert not (wf / ".stepsmith/pending/add/c01.json").exists()  # rejected
    assert json.loads((wf / "fixtures/add/c01.json").read_text())["expected"]["output"] == {
        "sum": "1.5"}
    assert (wf / ".stepsmith/pending/add/c02.json").exists()  # skipped: still pending


def test_interactive_quit_skips_the_rest(tmp_path, kit):
    wf = many_failing(kit, tmp_path / "wf", 3)
    subprocess.run(CLI + ["test", str(wf)], capture_output=True, timeout=120, check=False)
    code, text = run_in_pty(CLI + ["review", str(wf)], [("uit ?", "x"), ("uit ?", "q")],
                            tmp_path)
    assert code == 0, text
    assert "accepted 0, rejected 0, skipped 3" in text
    assert len(list((wf / ".stepsmith/pending/add").glob("*.json"))) == 3


def _check_consistent(wf, n, may_be_uncomputed=False) -> tuple[int, int]:
    """Every fixture is whole (old or new); every one still old keeps its pending change
    (`may_be_uncomputed`: test --update killed before it wrote any pending change)."""
    accepted = kept = 0
    sums = [json.loads((wf / "fixtures" / "add" / f"c{i:02d}.json").read_text())
            ["expected"]["output"]["sum"] for i in range(n)]
    # test --update writes every pending change before it accepts the first one
    none_yet = may_be_uncomputed and all(s == f"{i}.5" for i, s in enumerate(sums))
    for i in range(n):
        f = wf / "fixtures" / "add" / f"c{i:02d}.json"
        doc = json.loads(f.read_text())  # never half-written
        got = doc["expected"]["output"]["sum"]
        assert got in (f"{i}.5", f"{i}.50"), got
        pend = wf / ".stepsmith" / "pending" / "add" / f"c{i:02d}.json"
        if got == f"{i}.5" and none_yet:
            kept += 1
        elif got == f"{i}.5":
            assert pend.exists(), f"pending change of c{i:02d} lost"
            json.loads(pend.read_text())  # and whole
            kept += 1
        else:
            accepted += 1
    leftovers = [p.name for p in (wf / "fixtures" / "add").iterdir()
                 if not p.name.endswith(".json")]
    assert all(x.endswith(".tmp") for x in leftovers)
    return accepted, kept


def _count(folder, pattern="*.json") -> int:
    try:
        return sum(1 for x in os.listdir(folder) if x.endswith(".json"))
    except FileNotFoundError:
        return 0


def _accepted(wf, n) -> int:
    hits = 0
    for i in range(n):
        try:
            hits += f'"sum": "{i}.50"' in (wf / "fixtures/add" / f"c{i:02d}.json").read_text()
        except (OSError, ValueError):
            pass
    return hits


def _pending_via_api(wf, n):
    """The pending changes `stepsmith test` would write (through the same module), without
    running n sandboxes per attempt."""
    from stepsmith.runner.app import pending
    from stepsmith.runner.fixtures.load import load_fixture

    for i in range(n):
        fx, _ = load_fixture(wf / "fixtures/add" / f"c{i:02d}.json")
        doc = fx.to_json()
        doc["expected"] = {"output": {"sum": f"{i}.50"}, "effects": []}
        pending.write(wf, "add", f"c{i:02d}", doc, fx.sha256,
                      code=("steps/calc.py", (wf / "steps/calc.py").read_bytes()))


@pytest.mark.parametrize("command", ["review", "update"])
def test_kill_9_at_random_points(tmp_path, kit, command):
    """Killed while it accepts (after a random number of fixtures, or a random time after the
    start): every fixture is whole, every one not accepted keeps its pending change, and a
    second run finishes the job."""
    n = 150 if command == "review" else 60
    rng = random.Random(1234)
    results = []
    for attempt in range(5):
        wf = many_failing(kit, tmp_path / f"wf{attempt}", n)
        pend = wf / ".stepsmith" / "pending" / "add"
        if command == "review":
            _pending_via_api(wf, n)
            argv = CLI + ["review", str(wf), "--accept"]
        else:
            argv = CLI + ["test", str(wf), "--update", "-j", "2"]
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        deadline = time.monotonic() + 120
        if attempt == 0:  # a random moment from the start (imports, running, accepting)
            time.sleep(rng.uniform(0.1, 1.5))
        elif command == "review":  # after a random number of acceptances
            left = rng.randrange(1, n)
            while _count(pend) > left and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.0005)
        else:  # while writing pending changes, or after a few acceptances
            written = rng.randrange(1, n)
            while _count(pend) < written and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.0005)
            if attempt % 2:
                while _accepted(wf, n) < 1 and p.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.0005)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(timeout=30)
        results.append(_check_consistent(wf, n, may_be_uncomputed=command == "update"))
        # whatever was left pending can still be accepted afterwards
        finish = ["review", str(wf), "--accept"] if command == "review" else \
            ["test", str(wf), "--update"]
        done = subprocess.run(CLI + finish, capture_output=True, text=True, timeout=120,
                              check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert _check_consistent(wf, n) == (n, 0)
    # the kills did land mid-way (some accepted, some still pending)
    assert any(0 < a < n for a, _ in results), results
