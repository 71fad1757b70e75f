"""The fix engine's safety judgement (runner/fix_safety.py) on the shapes that decide it: a fix
is kept only when every name the file still reads resolves as before (scope by scope, as
CPython's symtable sees it), and a `typing` import used only in annotations goes with them."""

from __future__ import annotations

import pytest
from stepsmith.runner.fix_safety import keeps_meaning, vet
from stepsmith.runner.fixes import apply_edits, fixes_of
from stepsmith.runner.validator import validate


def offered(src: str) -> list[tuple[str, str | None]]:
    """(code, the text after the problem's first fix) for each problem of `src`."""
    out = []
    for p in vet(src, validate(src)):
        fx = fixes_of(p)
        out.append((p.code, apply_edits(src, fx[0].edits) if fx else None))
    return out


@pytest.mark.parametrize("src", [
    "import os\n\n\ndef read(x):\n    return os.sep\n",
    # inside the function, and read by a nested function (a free variable)
    "def read(x):\n    import os\n    def g():\n        return os.sep\n    return g()\n",
    # the name is also assigned: removing the import changes what `os` is before that
    "import os\n\n\ndef read(x):\n    y = os\n    return y\n\n\nos = 1\n",
    # a star import may bind any name the file reads, builtins included
    "from math import *\n\n\ndef read(x):\n    return len(x)\n",
    # a bare local annotation is what makes `x` local: removing it changes the lookup
    "from typing import Dict\n\n\ndef read(v):\n    x: Dict\n    return x\n",
    # a typing name used outside an annotation
    "from typing import Dict\n\n\ndef read(v: Dict):\n    return isinstance(v, Dict)\n",
    # an annotation that calls something is not a plain type expression
    "from typing import Dict\n\n\ndef read(v: Dict[str, len('x')]):\n    return v\n",
    # with postponed annotations the annotations are strings: without it they run
    "from __future__ import annotations\n\n\ndef read(v: Undefined) -> int:\n    return 1\n",
])
def test_no_fix_when_a_name_would_change_meaning(src):
    assert all(after is None for code, after in offered(src) if code.startswith("SS1")), \
        offered(src)


@pytest.mark.parametrize("src, want", [
    ("import os\n\n\ndef read(x):\n    return x\n", "\n\ndef read(x):\n    return x\n"),
    ("import json\nfrom math import *\n\n\ndef read(x):\n    return json.dumps(x)\n",
     "import json\n\n\ndef read(x):\n    return json.dumps(x)\n"),
    (("from typing import Dict\n\n\ndef read(v: Dict = None, *a: 'Dict[str, int]', "
      "k: Dict | None=1, **kw: (Dict)) -> (\n  Dict  # c\n  ):\n    x: Dict\n    x = 1\n"
      "    return x\n"),
     "\n\ndef read(v=None, *a, k=1, **kw):\n    x = 1\n    return x\n"),
    (("import typing as t\n\n\ndef read(v: t.List[int]) -> t.Any:\n    w: t.Any = v\n"
      "    return w\n"),
     "\n\ndef read(v):\n    w = v\n    return w\n"),
])
def test_the_safe_fix(src, want):
    (first, *_rest) = [after for code, after in offered(src) if code.startswith("SS1")]
    assert first == want


def test_two_imports_of_one_name_are_each_removable_but_not_both():
    src = "import os\nimport os.path\n\n\ndef read(x):\n    return os.sep\n"
    assert [after is not None for _code, after in offered(src)] == [True, True]
    assert not keeps_meaning(src, "\n\n\n\ndef read(x):\n    return os.sep\n")


def test_a_file_the_host_cannot_compile_has_no_safe_fix():
    src = "import os\n\n\ndef read(x):\n    return x\n\n\nreturn 1\n"  # parses, never compiles
    assert [(code, after) for code, after in offered(src) if code == "SS101"] == \
        [("SS101", None)]


def test_only_fix_data_changes_and_other_problems_are_the_same_objects():
    src = "import os\n\n\ndef read(x):\n    return eval(os.sep)\n"
    before = validate(src)
    after = vet(src, before)
    assert after == before  # equality ignores data
    assert [p.data for p in after if p.code == "SS101"] == [{}]
    assert [p for p in after if p.code != "SS101"] == [p for p in before if p.code != "SS101"]
