"""Assigning to / deleting attributes of imported modules and of names
imported from them (the SS502 bypass `datetime.datetime = datetime.datetime.min`). Both
layers: the validator (SS406, parent and harness) and the facades (restricted builtins, no
validator), and a UTF-8 BOM that `check` accepts runs too."""

import pytest
from sandbox_kit import AT
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import Limits, run_step
from stepsmith.runner.validator import validate

BYPASS = ("import datetime\n\n\ndef f():\n    datetime.datetime = datetime.datetime.min\n"
          "    return datetime.datetime.now().isoformat()\n")
CASES = [
    BYPASS,
    "from datetime import datetime\n\n\ndef f():\n    del datetime.now\n    return 1\n",
    "import statistics\n\n\ndef f():\n    statistics.NormalDist = 1\n    return 1\n",
    "import json\n\n\ndef f():\n    j = json\n    j.dumps = j.loads\n    return 1\n",
    "import statistics\n\n\ndef f():\n    statistics.NormalDist.samples = statistics.NormalDist.cdf\n"
    "    return 1\n",
]


@pytest.mark.parametrize("src", CASES)
def test_validator_refuses_module_attribute_assignment(src):
    assert "SS406" in [p.code for p in validate(src)]
    res = run_step(src, "f", {}, evaluation_time=AT)
    assert res.status == "refused" and res.problems[0].code == "SS406", res


@pytest.mark.parametrize("src", CASES)
def test_facades_refuse_it_without_the_validator(src):
    res = sandbox._execute(src, "f", {}, filename="s.py", evaluation_time=AT, validate=False,
                           restricted=True, limits=Limits())
    assert res.status == "error" and res.error["type"] == "AttributeError", res
    assert "facade" in res.error["message"]


def test_pinned_clock_still_pinned_after_the_attempt():
    src = ("import datetime\n\n\ndef f():\n    try:\n"
           "        datetime.datetime = datetime.datetime.min\n    except AttributeError:\n"
           "        pass\n    return datetime.datetime.now(datetime.timezone.utc).isoformat()\n")
    res = sandbox._execute(src, "f", {}, filename="s.py", evaluation_time=AT, validate=False,
                           restricted=True, limits=Limits())
    assert res.status == "ok" and res.output == AT, res


BOM_SRC = "\ufeffimport json\n\n\ndef f(x):\n    return json.dumps(x)\n"


def test_bom_agreement_validator_and_harness():
    assert validate(BOM_SRC) == []
    res = run_step(BOM_SRC, "f", {"x": 1})
    assert res.status == "ok" and res.output == "1", res
    res = run_step(BOM_SRC.encode("utf-8"), "f", {"x": 2})
    assert res.status == "ok" and res.output == "2", res
