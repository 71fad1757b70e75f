"""Benchmark: validating step files, and parsing/checking a manifest, in process.

    python3 bench/check.py [--repeats N]

Prints median and p95 (ms) for a generated 1,000-line and 10,000-line step file of
realistic step code (decimal/datetime/statistics/re, comprehensions, match statements,
f-strings): `ast.parse` alone (interleaved with the uncached validation, for a ratio that
survives a busy machine), `validate` without its statement cache, with a cold cache, after a
one-function edit (the language server's per-keystroke case) and on an unchanged buffer;
plus a 200-step manifest through `stepsmith.runner.manifest` when that module exists: composed
in full, and after a one-value edit (the keystroke case, see runner/manifest/README.md). The language server validates on every keystroke: targets are a few ms for
1,000 lines and well under 100 ms for 10,000.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import tempfile
import time
from pathlib import Path

_HEADER = '''"""Generated step code for the validator benchmark."""

import datetime
import json
import math
import re
import statistics
from decimal import Decimal, ROUND_HALF_UP

'''

_FUNCTION = '''
def step_{n}(invoices, purchase_orders, tolerance, seed):
    """Pair each invoice with the open purchase order it settles (variant {n})."""
    limit = Decimal(tolerance)
    pattern = re.compile(r"PO-(\\d{{4,}})")
    open_orders = {{po["po_number"]: po for po in purchase_orders if po["status"] == "open"}}
    results = []
    for invoice in invoices:
        amount = Decimal(invoice["amount"]).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        found = pattern.search(invoice.get("reference", ""))
        due = datetime.date.fromisoformat(invoice["due"])
        late = (datetime.date(2026, 12, 1) - due).days
        match invoice.get("kind"):
            case "credit":
                amount = -amount
            case {{"currency": currency}} if currency != "GBP":
                amount = amount * Decimal("1.17")
            case _:
                pass
        best = None
        for po in open_orders.values():
            difference = abs(Decimal(po["amount"]) - amount)
            if difference <= limit and (best is None or difference < best[1]):
                best = (po, difference)
        spread = statistics.NormalDist(float(amount), 1.0).samples(3, seed=seed)
        score = math.fsum(spread) / len(spread) if spread else 0.0
        label = f"{{invoice['invoice_id']}}: {{amount:,.2f}} ({{late}} days)"
        results.append({{
            "invoice_id": invoice["invoice_id"],
            "status": "matched" if best else "unmatched",
            "po": found.group(1) if found else None,
            "label": label,
            "score": round(score, 2),
            "summary": "{{0[invoice_id]}} / {{1}}".format(invoice, late),
            "raw": json.dumps({{"amount": str(amount)}}, sort_keys=True),
        }})
    return sorted(results, key=lambda row: (row["status"], row["invoice_id"]))
'''


def step_file(lines: int) -> str:
    """Realistic step code of about `lines` lines."""
    parts = [_HEADER]
    total = _HEADER.count("\n")
    n = 0
    per = _FUNCTION.count("\n")
    while total + per <= lines:
        parts.append(_FUNCTION.format(n=n))
        total += per
        n += 1
    return "".join(parts)


def manifest_text(steps: int) -> str:
    out = [
        "workflow: bench",
        "version: 1",
        'python: "3.11"',
        "trigger:",
        "  manual: {}",
        "connections:",
        "  xero: {description: Ledger}",
        "sources:",
        "  invoices: {connection: xero, description: Invoices}",
        "effects:",
        "  draft_bill: {connection: xero, kind: create, key: invoice_id}",
        "steps:",
    ]
    for i in range(steps):
        src = "sources.invoices" if i == 0 else f"steps.s{i - 1}.output"
        out += [
            f"  - id: s{i}",
            f"    explanation: Step number {i} of the benchmark chain.",
            f"    code: steps/bench.py:step_{i}",
            "    inputs:",
            f"      invoices: {src}",
            "    network: none",
        ]
    return "\n".join(out) + "\n"


def _time(fn, repeats: int) -> tuple[float, float]:
    fn()  # warm-up
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return statistics.median(samples), p95


def _time_interleaved(fns, repeats: int) -> list[tuple[float, float]]:
    """Like `_time` for several functions, alternating them so that they share the machine's
    load (other work on a 2-core box moves absolute figures a lot; ratios much less)."""
    for fn in fns:
        fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            samples[i].append((time.perf_counter() - t0) * 1000)
    out = []
    for s in samples:
        s.sort()
        out.append((statistics.median(s), s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]))
    return out


def _row(label: str, median: float, p95: float, extra: str = "") -> None:
    print(f"  {label:<44} median {median:8.2f} ms   p95 {p95:8.2f} ms  {extra}")


def bench_validator(repeats: int) -> None:
    from stepsmith.runner.validator import engine, validate

    print("validator (in process):")
    for lines in (1_000, 10_000):
        src = step_file(lines)
        n_lines = src.count("\n")
        problems = engine.validate_whole_file(src)
        assert not problems, problems[:3]  # realistic code is clean
        assert validate(src) == problems
        reps = repeats if lines <= 1_000 else max(5, repeats // 4)
        (m, p), (m2, p2) = _time_interleaved(
            [lambda src=src: ast.parse(src), lambda src=src: engine.validate_whole_file(src)], reps)
        _row(f"ast.parse alone (gc on), {n_lines:,} lines", m, p)
        _row(f"validate, no cache, {n_lines:,} lines", m2, p2, f"({m2 / m:.2f}x ast.parse)")

        def cold(src=src):
            engine.clear_cache()
            validate(src)

        m3, p3 = _time(cold, reps)
        _row(f"validate, cold statement cache, {n_lines:,} lines", m3, p3)
        edits = iter(range(10**9))

        def keystroke(src=src, edits=edits):  # one function changed since the last call, as when typing
            validate(src.replace("variant 7)", f"variant 7 edit {next(edits)})", 1))

        m4, p4 = _time(keystroke, repeats)
        _row(f"validate, one function edited, {n_lines:,} lines", m4, p4)
        m5, p5 = _time(lambda src=src: validate(src), repeats)
        _row(f"validate, unchanged buffer, {n_lines:,} lines", m5, p5)
    single = step_file(60)
    m, p = _time(lambda: engine.validate_whole_file(single), repeats)
    _row("validate, one step function (~55 lines), no cache", m, p)


def bench_manifest(repeats: int) -> None:
    try:
        from stepsmith.runner.manifest import check_workflow, parse_manifest
    except ImportError:
        print("manifest: not available")
        return
    print("manifest (in process):")
    text = manifest_text(200)
    try:
        from stepsmith.runner.manifest.yamlpos import clear_cache
    except ImportError:  # an older tree without the one-line-edit shortcut
        def clear_cache():
            pass

    def cold():
        clear_cache()
        parse_manifest(text, "workflow.yaml")

    m, p = _time(cold, max(5, repeats // 2))
    _row("parse_manifest, 200 steps, composed in full", m, p)
    lines = text.split("\n")
    targets = [k for k, line in enumerate(lines) if line.startswith("    explanation:")]
    edits = iter(range(10**9))

    def keystroke_text() -> str:  # one explanation changed since the last call, as when typing
        n = next(edits)
        lines[targets[(n * 7) % len(targets)]] = f"    explanation: Step number {n} of the benchmark chain."
        return "\n".join(lines)

    m, p = _time(lambda: parse_manifest(keystroke_text(), "workflow.yaml"), max(5, repeats // 2))
    _row("parse_manifest, 200 steps, one value edited", m, p)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "steps").mkdir()
        code = "".join(
            f"\n\ndef step_{i}(invoices):\n    return invoices\n" for i in range(200)
        )
        (root / "steps" / "bench.py").write_text(code)
        (root / "workflow.yaml").write_text(text)
        mpath = root / "workflow.yaml"

        def buffer(edited: bool):  # the language server's read_text: the manifest's buffer
            current = keystroke_text() if edited else text
            return lambda p: current if p == mpath else None

        try:
            m, p = _time(lambda: (clear_cache(), check_workflow(mpath)), max(5, repeats // 2))
            m2, p2 = _time(lambda: check_workflow(mpath, buffer(True)), max(5, repeats // 2))
        except Exception as exc:  # noqa: BLE001 -- a module still under construction must not hide the rest
            print(f"  check_workflow failed: {type(exc).__name__}: {exc}")
        else:
            _row("check_workflow, 200 steps (+ step file), full", m, p)
            _row("check_workflow, 200 steps, one value edited", m2, p2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, repeats={args.repeats}")
    bench_validator(args.repeats)
    bench_manifest(args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
