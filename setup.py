"""Maps the import names onto the top-level folders (see docs/ARCHITECTURE.md: layout).

`stepsmith` is `stepsmith/` (version, py.typed), `stepsmith.runner` lives in `runner/`,
`stepsmith.server` in `server/`; every sub-package under them is found automatically so adding
a folder never needs an edit here. The checked-in JSON Schema (`schemas/`) is copied into the
package as `stepsmith/schemas/workflow.schema.json`, so editors of pip users find it.
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


class BuildWithSchema(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "stepsmith" / "schemas"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SCHEMA, target / SCHEMA.name)


setup(
    packages=packages,
    package_dir=package_dir,
    package_data={"stepsmith": ["py.typed"], "stepsmith.runner.rules": ["pages/*.md"]},
    cmdclass={"build_py": BuildWithSchema},
)
