"""Memory over a day of editing (issue 21), over stdio like bench/lsp.py:

    python bench/lsp_memory.py [--cycles 1000] [--steps 600]

Each cycle opens a manifest of `--steps` steps, hovers in it, closes it and deletes it
(the file goes from the disk and the client sends `didChangeWatchedFiles` Deleted). Two
patterns, each RSS after `cycles` against RSS after 100 in the same run (target: within 10%):
  * "one path": every cycle on the same path (a per-parse leak);
  * "distinct paths": every cycle a new path (a per-path table that is never evicted).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_client import Client, int_options, manifest_text, ours_cmd, print_targets, uri  # noqa: E402

DELETED = 3  # FileChangeType.Deleted


def big_manifest(steps: int, tag: str) -> str:
    return manifest_text(f"mem-{tag}", [
        f"  - id: s{s}\n    explanation: {'A step that does one small thing. ' * 3}\n"
        f"    code: steps/s.py:s{s}\n    inputs:\n      records: sources.rows" for s in range(steps)])


def cycles(root: Path, count: int, steps: int, distinct: bool) -> tuple[float, float]:
    """(RSS after 100 cycles, RSS after `count`) in MiB."""
    root.mkdir(parents=True, exist_ok=True)
    c = Client(ours_cmd(), root)
    c.initialize(root)
    at100 = None
    for i in range(count):
        name = f"w{i}.workflow.yaml" if distinct else "one.workflow.yaml"
        path = root / name
        text = big_manifest(steps, str(i))
        path.write_text(text)
        u = uri(path)
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": u, "languageId": "yaml", "version": 1, "text": text}})
        c.request("textDocument/hover", {"textDocument": {"uri": u},
                                         "position": {"line": 6 + 5 * (i % steps), "character": 8}})
        c.notify("textDocument/didClose", {"textDocument": {"uri": u}})
        path.unlink()
        c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": u, "type": DELETED}]})
        if i + 1 == 100:
            c.drain(1.0)
            at100 = c.rss_mib()
    c.drain(1.0)
    end = c.rss_mib()
    c.close()
    return at100, end


def run(count: int = 1000, steps: int = 600) -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-mem-") as tmp:
        for label, distinct in (("one path", False), ("distinct paths", True)):
            r100, rend = cycles(Path(tmp) / label.replace(" ", "-"), count, steps, distinct)
            growth = (rend - r100) / r100
            out[label] = {"after_100": r100, f"after_{count}": rend, "growth": growth}
            print(f"{label}: open/hover/close/delete of a {steps}-step manifest, RSS after 100 "
                  f"cycles {r100:.1f} MiB, after {count} {rend:.1f} MiB ({growth:+.1%})")
    out["targets"] = [(f"{label}: RSS after {count} within 10% of after 100", v["growth"] <= 0.10)
                      for label, v in out.items()]
    return out


def main(argv=None) -> int:
    a = int_options(argv, cycles=1000, steps=600)
    print_targets(run(a.cycles, a.steps)["targets"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
