"""pytest itself in a subprocess, with only our plugin loaded (the plugin suites)."""

import os
import subprocess
import sys


def pytest_run(cwd, *args, autoload=False):
    """pytest in a subprocess. Without autoload only our plugin (and xdist when asked) is
    loaded: other installed plugins (pytest-lsp costs ~2 s per start) stay out."""
    env = dict(os.environ)
    extra = []
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        extra = ["-p", "stepsmith.runner.pytest_plugin"]
        if "-n" in args:
            extra += ["-p", "xdist.plugin"]
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *extra, *args],
                       cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
                       env=env)
    return p.returncode, p.stdout + p.stderr
