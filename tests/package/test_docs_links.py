"""The README and the user docs link only to files that exist in a clone."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def referenced(text: str) -> set[str]:
    names = set(re.findall(r"`([\w./-]+\.(?:md|yaml|json|toml|sh))`", text))
    names |= set(re.findall(r"\]\(([^)#:]+)\)", text))
    return {n for n in names if "*" not in n and not n.startswith(("http", "<"))}


def test_readme_and_docs_point_only_into_the_clone():
    # the README and the user docs (docs/ARCHITECTURE.md is the developers' page)
    docs = [REPO / "README.md", *(REPO / "docs" / n for n in ("guide.md", "clock.md", "pypi.md"))]
    for doc in docs:
        for name in referenced(doc.read_text()):
            if name in ("workflow.yaml", "pyproject.toml", "stepsmith.toml") or name.startswith(
                    ("steps/", "fixtures/", "in.json", ".stepsmith/")):
                continue  # names of a user's files, not links
            base = doc.parent if name.endswith(".md") else REPO  # a link, relative to its page
            assert (base / name).exists() or (REPO / name).exists(), f"{doc.name}: {name}"
            assert not name.startswith(".."), f"{doc.name} points outside the clone: {name}"
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
