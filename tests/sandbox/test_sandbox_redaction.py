"""Connections reach the step only as declared, and never come back out."""

import json

from sandbox_kit import new_marker
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import load_connections, run_step, run_unvalidated

CANARY = "xero-canary-" + new_marker()


def assert_clean(res, secret=CANARY):
    blob = json.dumps(res.to_json())
    assert secret not in blob, blob
    assert secret not in repr(res)
    return blob


def test_returned_secret_is_redacted_everywhere_in_output():
    src = '''
def f(connections):
    s = connections["xero"]
    return {"plain": s, "inner": "Bearer " + s + "!", s: "as key",
            "deep": [[{"k": [s]}]], "n": len(s)}
'''
    res = run_step(src, "f", {}, connections={"xero": CANARY})
    assert res.status == "ok"
    assert_clean(res)
    out = res.output
    assert out["plain"] == "[redacted:xero]"
    assert out["inner"] == "Bearer [redacted:xero]!"
    assert out["[redacted:xero]"] == "as key"
    assert out["deep"] == [[{"k": ["[redacted:xero]"]}]]
    assert out["n"] == len(CANARY)


def test_secret_in_error_message_and_traceback_is_redacted():
    src = '''
def helper(token_value):
    raise ValueError("login failed for " + token_value)

def f(connections):
    return helper(connections["xero"])
'''
    res = run_step(src, "f", {}, connections={"xero": CANARY}, filename="steps/login.py")
    assert res.status == "error"
    blob = assert_clean(res)
    assert res.error["type"] == "ValueError"
    assert res.error["message"] == "login failed for [redacted:xero]"
    assert [(fr["file"], fr["line"], fr["function"]) for fr in res.error["traceback"]] == [
        ("steps/login.py", 6, "f"), ("steps/login.py", 3, "helper")]
    assert "[redacted:xero]" in blob


def test_secret_literal_in_source_line_of_traceback_is_redacted():
    src = f'def f(connections):\n    raise KeyError("{CANARY}")\n'
    res = run_step(src, "f", {}, connections={"xero": CANARY})
    assert res.status == "error"
    assert_clean(res)


def test_printed_secret_is_redacted():
    src = 'def f(connections):\n    print("secret is", connections["xero"])\n    return 1\n'
    res = run_step(src, "f", {}, connections={"xero": CANARY})
    assert res.status == "ok" and res.stdout == "secret is [redacted:xero]\n"
    assert_clean(res)


def test_secret_in_effect_payload_is_redacted():
    src = '''
def f(connections, effects):
    effects.emit("draft_bill", {"invoice_id": connections["xero"], "note": "x"})
    return "done"
'''
    res = run_step(src, "f", {}, connections={"xero": CANARY},
                   effects_declared={"draft_bill": "invoice_id"})
    assert res.status == "ok"
    assert_clean(res)
    assert res.effects == [{"effect": "draft_bill", "key": "[redacted:xero]",
                            "payload": {"invoice_id": "[redacted:xero]", "note": "x"}}]


def test_hostile_code_reading_the_environment_is_redacted():
    src = 'import os\ndef f():\n    return dict(os.environ)\n'
    res = run_unvalidated(src, "f", {}, connections={"xero": CANARY})
    assert res.status == "ok"
    assert res.output["STEPSMITH_CONNECTION_XERO"] == "[redacted:xero]"
    assert_clean(res)


def test_overlapping_and_numeric_secrets():
    src = 'def f(connections):\n    return [connections["a"], connections["b"], 123456789]\n'
    res = run_step(src, "f", {}, connections={"a": "abc", "b": "xxabcxx", "n": "3456"})
    assert res.output == ["[redacted:a]", "[redacted:b]", "12[redacted:n]789"]


def test_only_granted_connections_enter():
    src = 'import os\ndef f(connections):\n    return [sorted(connections), sorted(k for k in os.environ if "CONNECTION" in k)]\n'
    res = run_unvalidated(src, "f", {}, connections={"xero": "s1"})
    assert res.output == [["xero"], ["STEPSMITH_CONNECTION_XERO"]]


def test_secret_never_on_the_bwrap_command_line(monkeypatch):
    seen = {}
    real = sandbox.process.supervise

    def spy(cmd, *args, **kwargs):
        seen["cmd"] = cmd
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(sandbox.process, "supervise", spy)
    res = run_step('def f(connections):\n    return "ok"\n', "f", {}, connections={"xero": CANARY})
    assert res.status == "ok"
    assert CANARY not in "\0".join(seen["cmd"])


def test_load_connections_env_then_file(tmp_path):
    (tmp_path / ".stepsmith").mkdir()
    (tmp_path / ".stepsmith" / "connections.env").write_text(
        "# local credentials\nSTEPSMITH_CONNECTION_XERO=from-file\n"
        "export STEPSMITH_CONNECTION_BANK_FEED='quoted value'\nstripe=bare-alias\n"
        "STEPSMITH_CONNECTION_UNDECLARED=nope\n")
    env = {"STEPSMITH_CONNECTION_XERO": "from-env"}
    got = load_connections(tmp_path, ["xero", "bank-feed", "stripe", "missing"], environ=env)
    assert got == {"xero": "from-env", "bank-feed": "quoted value", "stripe": "bare-alias"}
    assert load_connections(tmp_path, ["xero"], environ={}) == {"xero": "from-file"}
    assert load_connections(tmp_path / "nowhere", ["xero"], environ={}) == {}
