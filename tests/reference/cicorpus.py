"""Generated corpora for the CI-output differential tests (tests/reference/test_ci_*.py):
workflow folders and step files with hostile names (space, `%`, quotes, `<&`, non-ASCII,
emoji, newline, a very long name), zero and many findings, very long lines, files with and
without a final newline, a broken manifest; and for `stepsmith test`, fixtures that pass,
fail, error and are served from their recording."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import wfkit as wfkit

#: consumer -> [cases compared, disagreements]; printed at the end of the run (conftest.py)
FIGURES: dict[str, list[int]] = {}


def figure(consumer: str, agreed: bool, n: int = 1) -> None:
    """Count `n` cases compared with `consumer` (and whether they agreed)."""
    cases = FIGURES.setdefault(consumer, [0, 0])
    cases[0] += n
    cases[1] += 0 if agreed else n

#: Names a user's folders and files really have (each a folder of the corpus and, with
#: `.py`, a step file). The newline one is legal on Linux and breaks line-based formats.
HOSTILE = ["plain", "with space", "pct%41", "odd%,;:", "quote'\"q", "lt<&gt>", "naïve-é",
           "emoji-🎉", "nl\nfolder", "tab\tname", "back\\slash", "hash#?", "x" * 120]

MANIFEST = """\
workflow: corpus
version: 1
python: "3.11"
trigger: {{manual: {{}}}}
connections:
  ledger: {{description: Ledger}}
sources:
  numbers: {{connection: ledger}}
steps:
  - id: add
    {explanation}: Add two exact amounts.
    code: {code}
    inputs:
      a: sources.numbers
      b: "0.50"
"""

STEP = """\
{imports}from decimal import Decimal


def add(a, b):
    {long}return {{"sum": str(Decimal(a) + Decimal(b))}}"""

CLEAN = STEP.format(imports="", long="")


def step_text(n_imports: int, final_newline: bool, long_line: bool) -> str:
    imports = "".join(f"import {m}\n" for m in ["os", "sys", "subprocess", "socket", "shutil",
                                               "pathlib", "random", "time"][:n_imports])
    long = ("note = " + repr("é" * 3000 + "<&>%") + "; x = note.__class__\n    "
            if long_line else "")
    text = STEP.format(imports=imports, long=long)
    return text + "\n" if final_newline else text


def write_check_corpus(root: Path) -> list[Path]:
    """One workflow per hostile name (its folder and its step file named so), with findings
    of several rules, fixable ones (a disallowed import; a misspelt key), with and without a
    final newline, a very long line; clean workflows; a manifest that does not parse; many
    findings in one file. Returns the workflow folders."""
    folders = []
    for i, name in enumerate(HOSTILE):
        wf = root / name
        code = json.dumps(f"steps/{name}.py:add", ensure_ascii=False)
        key = "explenation" if i % 2 else "explanation"  # misspelt: a fix renames it
        (wf / "steps").mkdir(parents=True)
        (wf / "workflow.yaml").write_text(MANIFEST.format(code=code, explanation=key),
                                          encoding="utf-8")
        text = step_text(1 + i % 3, final_newline=bool(i % 2), long_line=i % 4 == 3)
        (wf / "steps" / f"{name}.py").write_text(text, encoding="utf-8")
        folders.append(wf)
    clean = root / "clean ok"
    (clean / "steps").mkdir(parents=True)
    (clean / "workflow.yaml").write_text(
        MANIFEST.format(code='"steps/calc.py:add"', explanation="explanation"), encoding="utf-8")
    (clean / "steps" / "calc.py").write_text(CLEAN + "\n", encoding="utf-8")
    broken = root / "broken manifest"
    (broken / "steps").mkdir(parents=True)
    (broken / "workflow.yaml").write_text("workflow: broken\nsteps: [\n  - id: x\n",
                                          encoding="utf-8")
    many = root / "many"
    (many / "steps").mkdir(parents=True)
    (many / "workflow.yaml").write_text(
        MANIFEST.format(code='"steps/many.py:add"', explanation="explanation"), encoding="utf-8")
    body = "".join(f"import os{i}\n" for i in range(150)) + CLEAN + "\n"
    (many / "steps" / "many.py").write_text(body, encoding="utf-8")
    return [*folders, clean, broken, many]


def write_test_corpus(root: Path, names: list[str] | None = None) -> list[Path]:
    """For each name, a workflow (folder and step files named after it) whose fixtures pass,
    fail, error and are served from their recording; returns the folders."""
    out = []
    for name in names or HOSTILE:
        wf = root / name
        manifest = wfkit.full_manifest()
        files = {}
        for step in manifest["steps"]:
            rel, func = step["code"].rsplit(":", 1)
            new = f"steps/{name}-{Path(rel).name}"
            step["code"] = f"{new}:{func}"
            files[new] = wfkit.FULL_FILES[rel]
        fixtures = copy.deepcopy(wfkit.passing_fixtures())
        fixtures["add/wrong"] = wfkit.add_case("1.00", "1.00", "9.99")
        fixtures["boom/unexpected"] = {"inputs": {"a": "y"}, "evaluation_time": wfkit.AT,
                                       "expected": {"output": {"sum": "1"}}}
        wfkit.write_workflow(wf, manifest, files, fixtures)
        out.append(wf)
    return out
