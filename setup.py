"""Maps the import names onto the top-level folders (see docs/ARCHITECTURE.md: layout).

`stepsmith` is `stepsmith/` (version, py.typed), `stepsmith.runner` lives in `runner/`,
`stepsmith.server` in `server/`; every sub-package under them is found automatically so adding
a folder never needs an edit here. The checked-in JSON Schema (`schemas/`) is copied into the
package as `stepsmith/schemas/workflow.schema.json`, so editors of pip users find it; the
guide (docs/guide.md, docs/clock.md) as `stepsmith/docs/`, printed by `stepsmith guide`.
"""
import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

PACKAGE_DIRS = {"stepsmith": "stepsmith", "stepsmith.runner": "runner",
                "stepsmith.server": "server"}
SCHEMA = Path(__file__).resolve().parent / "schemas" / "workflow.schema.json"

packages = []
package_dir = {}
for name, folder in PACKAGE_DIRS.items():
    packages.append(name)
    package_dir[name] = folder
    if name != "stepsmith":
        for sub in find_packages(folder):
            packages.append(f"{name}.{sub}")


DOCS = [Path(__file__).resolve().parent / "docs" / n for n in ("guide.md", "clock.md")]


class BuildWithSchema(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "stepsmith" / "schemas"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SCHEMA, target / SCHEMA.name)
        docs = Path(self.build_lib) / "stepsmith" / "docs"  # `stepsmith guide` for pip users
        docs.mkdir(parents=True, exist_ok=True)
        for doc in DOCS:
            shutil.copyfile(doc, docs / doc.name)
        rules = docs / "rules"  # one page per rule: the `url` of every finding
        rules.mkdir(exist_ok=True)
        for page in sorted((DOCS[0].parent / "rules").glob("*.md")):
            shutil.copyfile(page, rules / page.name)


setup(
    packages=packages,
    package_dir=package_dir,
    package_data={"stepsmith": ["py.typed"]},
    cmdclass={"build_py": BuildWithSchema},
)
