"""Answer sizes of `stepsmith mcp` (what an answer costs a model's context):
python3 ./bench/mcp_answers.py [--copies N] [--json]

The bundled examples copied N times each (default 10: 20 workflows), served by one
`stepsmith mcp` over stdio and asked with the SDK's own client:
  - `schema`: the answer's characters (its JSON text content and its structured content)
  - `test` over every workflow (all passing), and with one fixture broken per workflow
  - the same `test` for one fixture with `full: true` (one fixture's details)
Sizes are characters of the JSON the client receives (content text + structuredContent),
not a timing: there is nothing to compare in the same run but the answers themselves.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def workspace(root: Path, copies: int) -> tuple[int, int]:
    """(workflows, fixture files) written under root."""
    for src in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        for i in range(copies):
            shutil.copytree(src, root / f"{src.name}-{i:02d}",
                            ignore=shutil.ignore_patterns(".stepsmith"))
    fixtures = [p for p in root.glob("*/fixtures/*/*.json") if p.parent.name != "_workflow"]
    return len(list(root.iterdir())), len(fixtures)


def size(res) -> dict:
    text = sum(len(getattr(c, "text", "")) for c in res.content)
    structured = len(json.dumps(res.structured_content)) if res.structured_content else 0
    return {"content_text": text, "structured": structured, "total": text + structured,
            "is_error": bool(res.is_error)}


def break_one_per_workflow(root: Path) -> int:
    n = 0
    for wf in sorted(root.iterdir()):
        f = sorted(wf.glob("fixtures/normalise/*.json")) or sorted(wf.glob("fixtures/*/*.json"))
        f = [p for p in f if p.parent.name != "_workflow"]
        doc = json.loads(f[0].read_text())
        out = doc.get("expected", {}).get("output")
        if out is None:
            continue
        doc["expected"]["output"] = {"changed": True}
        f[0].write_text(json.dumps(doc))
        n += 1
    return n


async def measure(root: Path) -> dict:
    params = StdioServerParameters(command=sys.executable, cwd=str(root),
                                   args=["-m", "stepsmith.runner.cli", "mcp", str(root)])
    out: dict = {}
    async with Client(params) as client:
        out["schema"] = size(await client.call_tool("schema", {}))
        out["test_all_passing"] = size(await client.call_tool("test", {}))
        one = sorted(root.glob("*/fixtures/normalise/*.json"))[0]
        node = f"{one.parent.parent.parent.name}::normalise::{one.stem}"
        tools = {t.name: t for t in (await client.list_tools()).tools}
        if "full" in tools["test"].input_schema.get("properties", {}):
            out["test_one_fixture_full"] = size(await client.call_tool(
                "test", {"paths": [node], "full": True}))
        out["broken"] = break_one_per_workflow(root)
        out["test_one_failure_per_workflow"] = size(await client.call_tool("test", {}))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        workflows, fixtures = workspace(root, args.copies)
        figures = {"workflows": workflows, "fixtures": fixtures, **anyio.run(measure, root)}
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"{workflows} workflows, {fixtures} fixtures")
        for k, v in figures.items():
            if isinstance(v, dict):
                print(f"  {k}: {v['total']:,} characters (text {v['content_text']:,}, "
                      f"structured {v['structured']:,}){' isError' if v['is_error'] else ''}")
        print(f"  broken fixtures: {figures['broken']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
