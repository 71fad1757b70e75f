"""Maps the import names onto the top-level folders (see SPEC: repository layout).

`stepsmith.runner` lives in `runner/`, `stepsmith.server` in `server/`; every sub-package under
them is found automatically so adding a folder never needs an edit here.
"""
from setuptools import find_packages, setup

PACKAGE_DIRS = {"stepsmith.runner": "runner", "stepsmith.server": "server"}

packages = []
package_dir = {}
for name, folder in PACKAGE_DIRS.items():
    packages.append(name)
    package_dir[name] = folder
    for sub in find_packages(folder):
        packages.append(f"{name}.{sub}")

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={"stepsmith.runner": ["data/*.json"]},
)
