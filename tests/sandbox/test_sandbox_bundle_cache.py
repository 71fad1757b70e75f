"""`stepsmith test` start-up: the compiled harness bundle is kept in the user's cache
folder under the digest of its sources and the interpreter, so a new process loads it instead
of compiling ~40 files; a damaged entry is compiled again, never trusted."""

import marshal
import stat

import pytest
from stepsmith.runner import harness
from stepsmith.runner.harness import bundle_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    harness.reset_cache()
    yield tmp_path / "cache" / "stepsmith" / "harness"
    harness.reset_cache()


def _same(a: dict, b: dict) -> None:
    assert a["sha256"] == b["sha256"] and a["files"] == b["files"]
    for k in ("main", "facades", "trace", "check"):
        assert marshal.loads(a[k]) == marshal.loads(b[k]), k
    assert a["main_code"] == b["main_code"]


def test_a_new_process_loads_the_bundle_instead_of_compiling_it(cache, monkeypatch):
    first = harness.bundle()
    (entry,) = cache.iterdir()
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    harness.reset_cache()
    monkeypatch.setattr(harness, "_compile_parts", lambda sources: pytest.fail("compiled"))
    _same(harness.bundle(), first)


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "not-marshal"])
def test_a_damaged_entry_is_compiled_again(cache, monkeypatch, damage):
    first = harness.bundle()
    (entry,) = cache.iterdir()
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[:-100])
    elif damage == "flip":
        entry.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif damage == "empty":
        entry.write_bytes(b"")
    else:
        import hashlib

        payload = b"\xff not marshal"
        entry.write_bytes(hashlib.sha256(payload).digest() + payload)
    harness.reset_cache()
    compiled = []
    real = harness._compile_parts
    monkeypatch.setattr(harness, "_compile_parts", lambda s: compiled.append(1) or real(s))
    _same(harness.bundle(), first)
    assert compiled == [1]


@pytest.mark.parametrize("change", ["interpreter", "allowed-modules"])
def test_another_interpreter_or_policy_names_another_entry(cache, monkeypatch, change):
    harness.bundle()
    harness.reset_cache()
    if change == "interpreter":
        monkeypatch.setattr(bundle_cache.sys, "version", "3.99.0 (another build)")
    else:  # policy.py as this process imported it, not as the file says now
        from stepsmith.runner.validator import policy

        monkeypatch.setattr(policy, "ALLOWED_MODULES", frozenset({"decimal"}))
    compiled = []
    real = harness._compile_parts
    monkeypatch.setattr(harness, "_compile_parts", lambda s: compiled.append(1) or real(s))
    harness.bundle()
    assert compiled == [1] and len(list(cache.iterdir())) == 2


def test_an_unwritable_cache_folder_costs_only_the_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    harness.reset_cache()
    try:
        assert harness.bundle()["sha256"]
    finally:
        harness.reset_cache()
