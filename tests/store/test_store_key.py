"""The store key (store/mac.py) is this user's own: a key file someone else owns, a symlink in
its place, or one of the wrong size is refused, loudly, and nothing is accepted or reused
under it (issue 18 item 5: dropping the owner check passed every test)."""

from __future__ import annotations

import os

import pytest
from stepsmith.runner.store import ResultStore, RuntimeIdentity, StoreError, build_request

IDENT = RuntimeIdentity("1", "3.11.9", "a" * 64)


def accept(wf):
    req = build_request(source="def f(a):\n    return a\n", function="f", inputs={"a": "1"},
                        evaluation_time="2026-12-01T07:00:00+00:00", seed=None)
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        return st.accept(workflow="demo", version=1, run_id="r1", step_id="s", request=req,
                         result={"status": "ok", "output": 1})


def _key_dir(tmp_path, monkeypatch):
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    folder = state / "stepsmith"
    folder.mkdir(parents=True, mode=0o700)
    return folder


def test_a_key_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    key = _key_dir(tmp_path, monkeypatch) / "store.key"
    key.write_bytes(b"k" * 32)  # a key someone else planted, and can read or change
    os.chmod(key, 0o600)
    os.chown(key, 65534, 65534)
    with pytest.raises(StoreError, match="not a regular file of this user"):
        accept(tmp_path / "wf")


def test_a_symlinked_key_is_refused(tmp_path, monkeypatch):
    folder = _key_dir(tmp_path, monkeypatch)
    real = tmp_path / "elsewhere.key"
    real.write_bytes(b"k" * 32)
    (folder / "store.key").symlink_to(real)
    with pytest.raises(StoreError, match="cannot use the store key"):
        accept(tmp_path / "wf")


@pytest.mark.parametrize("size", [0, 31, 33])
def test_a_key_of_the_wrong_size_is_refused(tmp_path, monkeypatch, size):
    key = _key_dir(tmp_path, monkeypatch) / "store.key"
    key.write_bytes(b"k" * size)
    os.chmod(key, 0o600)
    with pytest.raises(StoreError, match="not a stepsmith store key"):
        accept(tmp_path / "wf")


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660])
def test_a_key_others_may_read_is_refused(tmp_path, monkeypatch, mode):
    key = _key_dir(tmp_path, monkeypatch) / "store.key"
    key.write_bytes(b"k" * 32)
    os.chmod(key, mode)
    with pytest.raises(StoreError, match="other users may read or change it"):
        accept(tmp_path / "wf")
