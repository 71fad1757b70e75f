"""docs/ARCHITECTURE.md's layer picture is the import contract CI checks (pyproject.toml's
[tool.importlinter] `layers`), row for row: a layer added, moved or merged in one and not the
other fails here."""

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _short(name: str) -> str:
    return name.removeprefix("stepsmith.runner.").removeprefix("stepsmith.")


def contract_rows() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers"]
    return [re.sub(r"[\w.]+", lambda m: _short(m.group()), " ".join(row.split()))
            for row in layers["layers"]]


def map_rows() -> list[str]:
    text = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = text.split("## Layers", 1)[1].split("```", 2)[1]
    rows = []
    for line in block.strip("\n").splitlines():
        names = re.split(r"\s{3,}", line.strip(), maxsplit=1)[0]  # the packages, then why
        rows.append(names)
    return rows


def test_the_map_draws_the_contract():
    assert map_rows() == contract_rows()


def test_the_reader_sees_every_package_of_the_contract():
    """Every layer's package has its line in the package map below the picture."""
    text = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = text.split("## Packages", 1)[1].split("```", 2)[1]
    for row in contract_rows():
        for name in re.split(r" [|:] ", row):
            folder = "server/" if name == "server" else f"{name}/"
            assert re.search(rf"^\s*({re.escape(folder)}|{re.escape(name)}\.py)\s",
                             packages, re.M), name
