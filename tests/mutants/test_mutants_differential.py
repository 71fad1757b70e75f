"""Honest verdicts: a mutant reported killed makes the real `stepsmith test` fail once it is
applied to a copy of the workflow, and a survivor leaves it passing.

Step files are generated (seeded) from templates of business code (comparisons, Decimal
arithmetic with rounding modes, branches on and/or, sorted slices, min/max, integer division),
their fixtures recorded with the real `stepsmith record` from random inputs chosen to sit on
and off the boundaries. `stepsmith mutants` judges every mutant; a sample of survivors and of
killed mutants is then applied to a copy and tested."""

import json
import random
import shutil

import pytest
from stepsmith.runner.mutants import generate
from stepsmith.runner.mutants.apply import apply

pytestmark = pytest.mark.usefixtures("sandbox")

AT = "2026-12-01T07:00:00+00:00"
CMP = ("<", "<=", ">", ">=", "==", "!=")
TEMPLATES = (
    'r["cmp{i}"] = a {cmp} b',
    'r["sum{i}"] = str((a {arith} b).quantize(Decimal("0.01"), rounding={mode}))',
    'if a {cmp} b {logic} flag:\n        r["branch{i}"] = "over"\n    else:\n'
    '        r["branch{i}"] = "under"',
    'r["top{i}"] = sorted(items)[:{k}]',
    'r["pick{i}"] = {choose}(items) if items else 0',
    'r["n{i}"] = len(items) // {k} + sum(items) % {k}',
    'r["quiet{i}"] = not flag',
    'r["half{i}"] = str((a / Decimal("8")).quantize(Decimal("0.01"), rounding={mode}))',
    'r["near{i}"] = abs(a - b) <= Decimal("0.05")',
)
AMOUNTS = ("10.00", "10.04", "10.005", "12.50", "99.99", "100.00", "3.125", "0")
LIMITS = ("10.00", "100.00", "12.45")


def _step(rng: random.Random, name: str) -> str:
    lines = ["from decimal import Decimal, ROUND_HALF_EVEN, ROUND_HALF_UP", "", "",
             f"def {name}(amount, limit, items, flag):",
             "    a = Decimal(amount)", "    b = Decimal(limit)", "    r = {}"]
    for i, template in enumerate(rng.sample(TEMPLATES, 6)):
        lines.append("    " + template.format(
            i=i, cmp=rng.choice(CMP), arith=rng.choice("+-*"), logic=rng.choice(("and", "or")),
            mode=rng.choice(("ROUND_HALF_UP", "ROUND_HALF_EVEN")), k=rng.choice((2, 3)),
            choose=rng.choice(("min", "max"))))
    lines.append("    return r")
    return "\n".join(lines) + "\n"


def _inputs(rng: random.Random) -> dict:
    return {"amount": rng.choice(AMOUNTS), "limit": rng.choice(LIMITS),
            "items": [rng.randrange(10) for _ in range(rng.randrange(5))],
            "flag": rng.random() < 0.5}


def _workflow(kit, root, rng):
    steps, files = [], {}
    for name in ("alpha", "beta"):
        files[f"steps/{name}.py"] = _step(rng, name)
        steps.append({"id": name, "explanation": f"Generated step {name}.",
                      "code": f"steps/{name}.py:{name}",
                      "inputs": {p: "sources.numbers" for p in ("amount", "limit", "items",
                                                                  "flag")}})
    return kit.write_workflow(root, kit.demo_manifest(steps=steps), files), files


@pytest.mark.parametrize("seed", [7, 11])
def test_a_mutant_fails_stepsmith_test_exactly_when_it_was_reported_killed(
        kit, tmp_path, capsys, monkeypatch, seed):
    monkeypatch.chdir(tmp_path)
    rng = random.Random(seed)
    wf, files = _workflow(kit, tmp_path / "wf", rng)
    for name in ("alpha", "beta"):
        for n in range(4):
            (tmp_path / "in.json").write_text(json.dumps(_inputs(rng)))
            code, _, err = kit.cli(capsys, "record", "wf", "--step", name, "--inputs",
                                   "in.json", "--at", AT, "--name", f"case-{n}")
            assert code == 0, err
    assert kit.cli(capsys, "test", "wf")[0] == 0
    code, out, err = kit.cli(capsys, "mutants", "wf", "--format", "json", "--no-cache")
    doc = json.loads(out)
    assert doc["summary"]["error"] == 0 and doc["notes"] == [], (doc["notes"], err)
    records = doc["mutants"]
    survivors = [m for m in records if m["status"] == "survived"]
    noticed = [m for m in records if m["status"] in ("killed", "timeout")]
    assert survivors and noticed  # the sample has both kinds
    assert code == 1
    sample = rng.sample(survivors, min(6, len(survivors))) + \
        rng.sample(noticed, min(6, len(noticed)))
    texts = {}
    for rel, text in files.items():
        fn = rel.split("/")[1][:-3]
        for m in generate.file_mutants(text, [fn], python="3.11").mutants:
            e = m.mutation.edit
            texts[(f"wf/{rel}", e.line, e.column, e.end_line, e.end_column, m.mutation.operator,
                    m.mutation.replacement)] = apply(text, e)
    assert len(texts) == len(records)  # every reported mutant is one the generator makes
    for i, m in enumerate(sample):
        mutated = texts[(m["path"], m["line"], m["column"], m["end_line"], m["end_column"],
                         m["operator"], m["replacement"])]
        copy = tmp_path / f"copy{i}"
        shutil.copytree(wf, copy, ignore=shutil.ignore_patterns(".stepsmith"))
        (copy / m["path"].removeprefix("wf/")).write_text(mutated)
        code, out, err = kit.cli(capsys, "test", copy.name)
        expected = 1 if m["status"] in ("killed", "timeout") else 0
        assert code == expected, (m, out[-2000:], err[-1000:])
