"""The verdict cache (runner/mutants/cache.py): what a run puts it reads back at once, stores in
one transaction when it flushes or closes, and a later run reads, one key at a time or asked
for together (`prefetch`), each key its own value."""

from stepsmith.runner.mutants.cache import Cache, key


def test_what_is_put_is_read_back_and_stored_on_close(tmp_path):
    where = tmp_path / "v.sqlite3"
    a, b = key("a"), key("b")
    first = Cache(where)
    first.put(a, {"verdict": "noticed"})
    assert first.get(a) == {"verdict": "noticed"} and first.get(b) is None
    assert Cache(where).get(a) is None  # not stored until the run flushes or closes
    first.close()
    assert Cache(where).get(a) == {"verdict": "noticed"}


def test_prefetched_keys_read_their_own_values(tmp_path):
    where = tmp_path / "v.sqlite3"
    keys = [key("k", i) for i in range(1200)]  # more than one statement's parameters
    writer = Cache(where)
    for i, k in enumerate(keys[:1100]):
        writer.put(k, {"i": i})
    writer.flush()
    reader = Cache(where)
    reader.prefetch(keys)
    writer.put(keys[1150], {"i": 1150})  # stored after the prefetch: it said "not stored"
    writer.close()
    assert [reader.get(k) for k in keys] == [{"i": i} for i in range(1100)] + [None] * 100
    assert Cache(where).get(keys[1150]) == {"i": 1150}


def test_a_cache_that_is_off_keeps_nothing(tmp_path):
    off = Cache(tmp_path / "v.sqlite3", on=False)
    off.put(key("a"), {"verdict": "passed"})
    off.prefetch([key("a")])
    assert off.get(key("a")) is None
    off.close()


def test_a_key_from_a_prefix_is_the_whole_key():
    from stepsmith.runner.mutants.cache import key_after, prefix

    salt, config = ("code", "harness", {"wall": 5}), {"function": "f", "inputs": {"a": 1}}
    first = prefix("mutant", salt, config)
    whole = key("mutant", salt, config, "closure", b"fixture bytes")
    assert key_after(first, "closure", b"fixture bytes") == whole
    assert key_after(first, "closure", b"fixture bytes") == whole  # the prefix is unchanged
    assert key_after(first, "closure", b"other fixture") != whole
    assert key_after(prefix("mutant", salt, {**config, "inputs": {"a": 2}}),
                     "closure", b"fixture bytes") != whole


def test_a_text_judged_again_is_not_mutated_again(tmp_path, monkeypatch):
    """A run on a step text judged before (a fixture or the manifest saved since) takes the
    mutants of that text as worked out then; other validation questions (uses, python) are
    worked out anew."""
    from mutants_kit import write_pay
    from stepsmith.runner.app import mutants as app
    from stepsmith.runner.app.mutants import MutantsRequest, run_mutants
    from stepsmith.runner.mutants import generate
    from stepsmith.runner.validator import StepUse

    calls = []
    real = generate.validate

    def counted(text, **kw):
        calls.append(text)
        return real(text, **kw)

    monkeypatch.setattr(generate, "validate", counted)
    monkeypatch.setattr(app, "_PLANS", type(app._PLANS)())
    step = write_pay(tmp_path, spin=False) / "steps/approve.py"
    first = run_mutants(MutantsRequest(paths=[str(step)], cache=False))
    assert len(calls) >= len(first.mutants) > 0
    calls.clear()
    again = run_mutants(MutantsRequest(paths=[str(step)], cache=False))
    assert calls == []
    assert [m.to_json() | {"duration_ms": 0} for m in again.ordered()] == \
        [m.to_json() | {"duration_ms": 0} for m in first.ordered()]
    text = step.read_text()
    app._file_plan(text, ["approve"], "3.11", [StepUse("approve", "approve")])
    app._file_plan(text, ["approve"], "3.11", [StepUse("approve", "approve", "public_egress")])
    assert len(calls) == 2 * len(first.mutants)  # each question its own validations
