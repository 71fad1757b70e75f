"""The harness bundle cache is an optimisation that no one else can feed: an entry becomes the
in-sandbox runtime of every run, so one that another user wrote, forged, swapped for a symlink
or made unreadable is ignored, compiled again and reported once, and the run's result is the
same as without a cache. Each case runs `stepsmith run` for real (a fresh process: nothing of
this test process's bundle or spare sandboxes is reused)."""

from __future__ import annotations

import hashlib
import hmac
import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")

BIN = Path(sys.executable).parent / "stepsmith"
OTHER_UID = 999  # stepsmith-sandbox, created by scripts/setup
WARNING = "BundleCacheWarning"


@pytest.fixture
def env(tmp_path, kit):
    kit.write_workflow(tmp_path / "wf")
    state = tmp_path / "state"
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_STATE_HOME": str(state), "PYTHONWARNINGS": "default"}


def run(tmp_path: Path, env: dict) -> tuple[dict, str]:
    p = subprocess.run([str(BIN), "run", "wf", "--step", "add", "--inputs", "-", "--format",
                        "json"], input='{"a": "1.00", "b": "2.25"}', capture_output=True,
                       text=True, cwd=tmp_path, env=env, timeout=120, check=False)
    out = json.loads(p.stdout)
    for k in ("duration_ms",):
        out.pop(k, None)
    return out, p.stderr


def folder(env) -> Path:
    return Path(env["XDG_CACHE_HOME"]) / "stepsmith" / "harness"


def entry(env) -> Path:
    (e,) = [p for p in folder(env).iterdir() if p.name.endswith(".bundle")]
    return e


@pytest.fixture
def baseline(tmp_path, env):
    """The result without a cache (none yet), and the genuine entry that run wrote."""
    result, err = run(tmp_path, env)
    assert result["status"] == "ok" and result["output"] == {"sum": "3.25"}, result
    assert WARNING not in err and entry(env).stat().st_mode & 0o777 == 0o600
    again, err = run(tmp_path, env)  # the genuine entry is used, silently
    assert again == result and WARNING not in err
    return result


def _forged_parts() -> bytes:
    """A bundle whose harness ignores the step and answers what the forger wants."""
    main = compile("import sys\nsys.stdout.write('{\"status\": \"ok\", \"output\": 42}')\n",
                   "forged", "exec")
    return marshal.dumps({"main": marshal.dumps(main), "facades": marshal.dumps(main),
                          "trace": marshal.dumps(main), "check": marshal.dumps({})})


def _forge(path: Path, how: str) -> None:
    payload = _forged_parts()
    if how == "sha256":  # the old format: a checksum anyone can compute
        path.write_bytes(hashlib.sha256(payload).digest() + payload)
    else:  # a MAC, under a key that is not this user's
        mac = hmac.new(b"k" * 32, path.name.encode() + b"\0" + payload, hashlib.sha256)
        path.write_bytes(mac.digest() + payload)


def _assert_ignored_once(tmp_path, env, baseline, why: str) -> None:
    result, err = run(tmp_path, env)
    assert result == baseline
    assert err.count(WARNING) == 1 and why in err, err


@pytest.mark.parametrize("how", ["sha256", "other-key"])
def test_a_forged_entry_is_never_run(tmp_path, env, baseline, how):
    _forge(entry(env), how)
    _assert_ignored_once(tmp_path, env, baseline, "its MAC does not match")
    # compiled again and stored authentic: the next run is silent
    result, err = run(tmp_path, env)
    assert result == baseline and WARNING not in err


def test_an_entry_swapped_for_a_symlink_is_not_followed(tmp_path, env, baseline):
    e = entry(env)
    elsewhere = tmp_path / "elsewhere.bundle"
    shutil.copy(e, elsewhere)  # even a genuine entry, elsewhere
    _forge(elsewhere, "sha256")
    e.unlink()
    e.symlink_to(elsewhere)
    _assert_ignored_once(tmp_path, env, baseline, "a symbolic link")
    assert not e.is_symlink()  # replaced by an authentic entry
    assert hashlib.sha256(elsewhere.read_bytes()[32:]).digest() == elsewhere.read_bytes()[:32]


def _need_root():
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")


def test_an_entry_of_another_user_is_not_used(tmp_path, env, baseline):
    _need_root()
    os.chown(entry(env), OTHER_UID, OTHER_UID)  # genuine bytes: still not this user's file
    _assert_ignored_once(tmp_path, env, baseline, "belongs to uid 999")


@pytest.mark.parametrize("level", ["stepsmith", "harness"])
def test_a_folder_of_another_user_or_writable_by_others_is_not_used(tmp_path, env, baseline,
                                                                     level):
    target = folder(env) if level == "harness" else folder(env).parent
    target.chmod(0o777)
    _assert_ignored_once(tmp_path, env, baseline, "may be written by other users")
    before = {p.name: p.read_bytes() for p in folder(env).iterdir()}
    target.chmod(0o700)
    if os.geteuid() == 0:
        os.chown(target, OTHER_UID, OTHER_UID)
        _assert_ignored_once(tmp_path, env, baseline, "belongs to uid 999")
        assert {p.name: p.read_bytes() for p in folder(env).iterdir()} == before  # no write


def test_a_symlinked_cache_folder_is_not_followed(tmp_path, env, baseline):
    real = tmp_path / "real-harness"
    folder(env).rename(real)
    folder(env).symlink_to(real)
    _assert_ignored_once(tmp_path, env, baseline, "a symbolic link")


@pytest.mark.parametrize("kind", ["fifo", "directory", "mode-000"])
def test_an_unreadable_entry_is_compiled_again(tmp_path, env, baseline, kind):
    e = entry(env)
    e.unlink()
    if kind == "fifo":  # reading it would wait for a writer forever
        os.mkfifo(e, 0o600)
        why = "not a regular file"
    elif kind == "directory":
        e.mkdir(0o700)
        why = "is a directory"
    else:
        e.write_bytes(b"\0" * 64)
        e.chmod(0)
        why = "permission denied" if os.geteuid() != 0 else "its MAC does not match"
    _assert_ignored_once(tmp_path, env, baseline, why)


def test_without_the_users_key_the_cache_is_not_trusted(tmp_path, env, baseline):
    key = Path(env["XDG_STATE_HOME"]) / "stepsmith" / "store.key"
    key.chmod(0o644)  # others could have read it: nothing is authenticated with it
    _assert_ignored_once(tmp_path, env, baseline, "other users may read or change it")
