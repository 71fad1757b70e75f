"""A cold language server's first diagnostics pay for every import on their path (issue 8's
didOpen figure): finding the workflows must not import the manifest model (pydantic, ~75 ms),
and neither must loading one submodule of `runner.manifest` (the package imports lazily)."""

import subprocess
import sys

PROBE = """
import sys
from stepsmith.runner.workspace.discovery import discover, find_manifests, nearest_manifests
found = find_manifests([sys.argv[1]])
assert [p.name for p in found] == ["workflow.yaml"], found
nearest_manifests(sys.argv[1] + "/wf/steps/a.py")
discover([sys.argv[1]])
import stepsmith.runner.manifest.yamlpos
from stepsmith.runner.manifest import YMap, is_manifest_name
heavy = sorted(m for m in sys.modules if m.split(".")[0] == "pydantic"
               or m in ("stepsmith.runner.manifest.model", "stepsmith.runner.manifest.workflow_checks"))
print(",".join(heavy))
"""


def test_discovery_and_yaml_loading_import_no_pydantic(tmp_path):
    (tmp_path / "wf" / "steps").mkdir(parents=True)
    (tmp_path / "wf" / "workflow.yaml").write_text("workflow: wf\n")
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_the_lazy_package_still_exports_every_name():
    import stepsmith.runner.manifest as manifest

    for name in manifest.__all__:
        assert getattr(manifest, name) is not None, name
    assert "Workflow" in dir(manifest)
    try:
        manifest.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
