"""Hostile step code: every trap in the spec, plus our own. Each must be refused, with the
rule that names the trap (not merely some incidental rule)."""

from __future__ import annotations

import pytest
from stepsmith.runner.validator import validate
from validator_helpers import NONE_USE

IMPORTS = "import datetime\nimport json\nimport re\nimport statistics\n\n\n"


def in_step(body: str) -> str:
    lines = "\n".join("    " + line for line in body.strip("\n").splitlines())
    return f"{IMPORTS}def step(x, g, e, nd, names, t):\n{lines}\n"


HOSTILE = [
    # --- the spec's measured traps -----------------------------------------------------------
    ("SS203", 'return getattr(x, "_" + "_class__")'),  # constructed-string getattr
    ("SS205", 'return "{0.__class__}".format(x)'),  # format-string traversal
    ("SS303", "gen = (i for i in [1])\nreturn gen.gi_frame.f_back.f_globals"),
    ("SS302", "return type(names[0], (), {})"),  # three-argument type
    ("SS304", "return datetime.datetime.mro()[1].now()"),  # the real clock
    ("SS201", "match x:\n    case object(__class__=c):\n        return c"),  # kwd_attrs
    ("SS201", "return x._\uff3fclass\uff3f\uff3f"),  # NFKC: _＿class＿＿ is __class__
    ("SS202", "return _\uff3fbuiltins\uff3f\uff3f"),  # NFKC dunder name
    ("SS301", '\uff45\uff56\uff41\uff4c("1")'),  # NFKC: ｅｖａｌ is eval
    ("SS001", "return x.\uff3f\uff3fclass\uff3f\uff3f"),  # the spec's spelling: not even Python
    ("SS305", "return json.codecs.builtins.open"),  # leaking modules
    ("SS305", "m = [json][0]\nreturn m.codecs"),  # aliasing dodges an allowlist
    ("SS305", 'return datetime.sys.modules["os"]'),
    ("SS305", "return statistics.random.random()"),
    ("SS305", "return re.enum, re.functools"),
    ("SS305", "from json import codecs\nreturn codecs"),
    ("SS305", "from datetime import sys\nreturn sys"),
    # --- dynamic code and introspection ---------------------------------------------------------
    ("SS301", "f = eval\nreturn f(names)"),
    ("SS301", '[exec][0]("import os")'),
    ("SS301", '__import__("os").system("id")'),
    ("SS301", 'return compile("1", "<s>", "eval")'),
    ("SS301", 'return open("/etc/passwd").read()'),
    ("SS301", 'return globals()["json"]'),
    ("SS301", "return vars(json)"),
    ("SS301", "return dir(x)"),
    ("SS301", "breakpoint()"),
    ("SS301", 'return memoryview(b"x")'),
    ("SS301", "def inner(open=open):\n    return open\nreturn inner"),
    ("SS302", 'return type(type(1))("C", (), {})'),  # type(cls) is type itself
    ("SS302", 'k = type\nreturn k("C", (), {})'),
    ("SS302", "return [type][0]"),
    ("SS201", "return (lambda: 0).__globals__"),
    ("SS201", 'return f"{x.__class__}"'),  # f-string expressions are code
    ("SS201", 'return f"{x:{x.__class__}}"'),  # ... including nested format specs
    ("SS201", "return (lambda q=x.__class__: q)()"),  # defaults run at definition time
    ("SS201", "return x.__class__.__subclasses__()"),
    ("SS201", "try:\n    1 / 0\nexcept Exception as err:\n    return err.__traceback__"),
    ("SS303", "return e.tb_frame.f_globals"),
    ("SS303", "return g.gi_code.co_consts"),
    ("SS303", "return g.cr_frame"),
    # --- attribute access through strings --------------------------------------------------------
    ("SS203", 'get = getattr\nreturn get(x, "__class__")'),
    ("SS203", "return getattr(x, *names)"),
    ("SS203", "return list(map(getattr, [x], names))"),
    ("SS204", 'return getattr(x, "\\x5f\\x5fclass\\x5f\\x5f")'),  # escapes: check values
    ("SS204", 'return getattr(x, "mro")()'),
    ("SS204", 'return getattr(g, "gi_frame")'),
    ("SS204", 'return getattr(nd, "samples")(5)'),
    ("SS204", 'return getattr("{0.__class__}", "format")(x)'),
    ("SS204", 'setattr(x, "__class__", t)'),
    ("SS205", 'return "{0.\\x5f_class__}".format(x)'),
    ("SS205", 'return "{0:{1.__globals__}}".format(x, t)'),
    ("SS205", 'return "{x._private}".format_map({"x": x})'),
    ("SS205", 'return str.format_map("{x.gi_frame}", {"x": g})'),
    ("SS205", 'return "{0.f_globals}".format(e)'),
    ("SS205", 'return "{0[0].__class__}".format([x])'),  # attribute after an index
    ("SS205", 'return "{.__class__}".format(x)'),  # auto-numbered field
    ("SS205", 'return "{0!r:{1:{2._x}}}".format(x, x, x)'),  # nested specs
    ("SS206", 'return ("{0._" + "_class__}").format(x)'),
    ("SS206", 'fmt = names[0]\nreturn fmt.format(x)'),
    ("SS206", 'f = "{0}".format\nreturn str.format'),
    ("SS202", 'return __builtins__["eval"]'),
    ("SS202", "return dict(__class__=x)"),
    # --- determinism -----------------------------------------------------------------------------
    ("SS501", "return statistics.NormalDist(0, 1).samples(5)"),
    ("SS501", "s = nd.samples\nreturn s(5)"),
    ("SS501", "return nd.samples(5, **{})"),
    ("SS502", "return datetime.datetime.now().now()"),  # instance -> its real class
    ("SS502", "d = datetime.date.fromisoformat('2026-12-01')\nreturn d.today()"),
    ("SS204", 'return getattr(datetime.datetime, "now")()'),
    # --- constructs ------------------------------------------------------------------------------
    ("SS403", "global json\njson = None"),
    ("SS402", "async def inner():\n    await inner()\nreturn inner"),
]

HOSTILE_FILES = [
    ("SS101", "import os\n"),
    ("SS101", "import builtins\n"),
    ("SS101", "from subprocess import run\n"),
    ("SS101", "import ctypes\n"),
    ("SS101", "from __future__ import annotations\n"),
    ("SS102", "from json import decoder\n"),
    ("SS103", "from .. import secrets\n"),
    ("SS202", "import json as __builtins__\n"),
    ("SS401", "class Meta(type):\n    pass\n"),
    ("SS404", "def step(x):\n    return x\n\n\n@step\ndef other(x):\n    return x\n"),
    ("SS405", 'x = __import__("os").system("id")\n'),  # runs at load time
    ("SS405", 'if __name__ == "__main__":\n    pass\n'),
]


@pytest.mark.parametrize("code,body", HOSTILE, ids=[f"{h[0]}-{i}" for i, h in enumerate(HOSTILE)])
def test_hostile_step_body_is_refused(code, body):
    problems = validate(in_step(body))
    assert code in {p.code for p in problems}, [(p.code, p.message) for p in problems]


@pytest.mark.parametrize("code,source", HOSTILE_FILES,
                         ids=[f"{h[0]}-{i}" for i, h in enumerate(HOSTILE_FILES)])
def test_hostile_file_is_refused(code, source):
    problems = validate(source)
    assert code in {p.code for p in problems}, [(p.code, p.message) for p in problems]


def test_network_module_refused_for_a_none_step():
    assert [p.code for p in validate("import urllib.request\n", uses=NONE_USE)] == ["SS105"]


def test_at_least_thirty_hostile_snippets():
    assert len(HOSTILE) + len(HOSTILE_FILES) >= 30
