"""The guide is a tutorial a new user follows from `stepsmith init` to a
reviewed change, and its commands work as written. Every ```sh block of docs/guide.md runs, in
order, as one bash script (`set -euo pipefail`) in a scratch folder, with this checkout's
`stepsmith` and `pytest` first on PATH. A command the guide says fails carries the comment
`# exits N` and must exit exactly N. Real CLI, real sandbox."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docblocks import console_blocks, fenced, run_console

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "guide.md"
pytestmark = pytest.mark.usefixtures("sandbox")


def shell_blocks(text: str) -> list[str]:
    return fenced(text, "sh")


def script(blocks: list[str]) -> str:
    lines = ["set -euo pipefail"]
    for block in blocks:
        for line in block.splitlines():
            m = re.fullmatch(r"(.*?)\s+# exits (\d+)", line)
            if m:
                cmd, want = m.groups()
                lines.append(f'if {cmd}; then rc=0; else rc=$?; fi; [ "$rc" -eq {want} ] || '
                             f'{{ echo "guide: {cmd!r} exited $rc, the guide says {want}" >&2; '
                             f'exit 99; }}')
            else:
                lines.append(line)
    return "\n".join(lines) + "\n"


def test_the_guide_is_a_tutorial_first():
    text = GUIDE.read_text()
    heads = re.findall(r"^## (.*)$", text, re.M)
    assert heads[0].startswith("1. ") and text.index("# Reference") > text.index(heads[5])
    for topic in ("`sources`", "`recorded`", "`evaluation_time`", "`seed`", "record . --case",
                  "stepsmith review", "--update", "pending change", "public_egress"):
        assert topic in text, topic
    assert len(shell_blocks(text)) >= 6


def test_every_shell_block_of_the_guide_runs_as_written(tmp_path):
    blocks = shell_blocks(GUIDE.read_text())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CI")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "120"
    p = subprocess.run(["bash", "-c", script(blocks)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600, check=False)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    wf = tmp_path / "invoices"
    # where the tutorial ends: a reviewed change accepted, workflow cases recorded
    assert '"largest": "INV-7"' in (wf / "fixtures" / "total" / "big-batch.json").read_text()
    assert (wf / "fixtures" / "flag" / "day1.json").exists()
    assert (wf / "fixtures" / "rates" / "day2.json").exists()
    assert '"USD": "1.26"' in (wf / "fixtures" / "rates" / "today.json").read_text()
    assert not list((wf / ".stepsmith" / "pending").rglob("*.json"))
    assert "6 passed, 2 recorded" in p.stdout


def _untimed(lines: list[str]) -> list[str]:
    """Output lines with their timings blanked (`in 0.23s`, `(23 ms)`): the rest must match."""
    return [re.sub(r"\bin \d+\.\d+s\b|\(\d+ ms\)", "<time>", line) for line in lines]


def test_the_fixture_strength_section_prints_what_it_shows(tmp_path):
    # docs/guide.md section 8: the boundary survivor, the fixture that kills it, the cache
    text = GUIDE.read_text()
    blocks = console_blocks(text)
    commands = [c for b in blocks for c in b.commands]
    assert [c.line.split()[1] for c in commands] == ["mutants", "record", "mutants"]
    # the step the page shows is the step the commands run
    (shown_step,) = re.findall(r"^```python\n(def approve.*?)^```", text, re.S | re.M)
    assert shown_step in blocks[0].setup
    errors = run_console(blocks, tmp_path)
    for c in commands:
        assert _untimed(c.printed) == _untimed(c.shown), (c.line, c.printed, errors[-3000:])
