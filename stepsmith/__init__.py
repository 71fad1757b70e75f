"""stepsmith: authoring tools for sandboxed Python workflows.

`stepsmith.runner` holds the harness (validator, manifest model, sandbox, fixtures, store,
CLI); `stepsmith.server` the language server. The JSON Schema of `workflow.yaml` ships with
the package: :func:`schema_path`.
"""

from pathlib import Path

__version__ = "0.1.0"

__all__ = ["__version__", "guide_path", "schema_path"]


def schema_path() -> Path:
    """The JSON Schema of workflow.yaml: inside the installed package, or in the clone."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "schemas" / "workflow.schema.json",
                      here.parent / "schemas" / "workflow.schema.json"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("workflow.schema.json is not installed with stepsmith")


def guide_path() -> Path:
    """The user guide (docs/guide.md): inside the installed package, or in the clone."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "docs" / "guide.md", here.parent / "docs" / "guide.md"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("the guide is not installed with stepsmith")
