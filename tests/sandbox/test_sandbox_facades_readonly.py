"""The facades refuse assignment at run time, below the validator (SS406): with the validator
off and the restricted builtins on, a step cannot swap the pinned clock class or the seeded
NormalDist for the real ones behind every later call (issue 18 item 5: the mutation table
found no test of this layer)."""

from __future__ import annotations

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import Limits

AT = "2026-12-01T07:00:00+00:00"


def restricted(src):
    return sandbox._execute(src, "f", {}, filename="s.py", validate=False, restricted=True,
                            evaluation_time=AT, limits=Limits())


@pytest.mark.parametrize("statement", [
    "datetime.datetime = datetime.date",
    "del datetime.datetime",
    "datetime.datetime.now = datetime.date.today",
    "del datetime.date.today",
    "statistics.NormalDist = None",
    "statistics.NormalDist.samples = statistics.NormalDist.inv_cdf",
])
def test_a_facade_module_or_class_cannot_be_changed(statement):
    src = ("import datetime\nimport statistics\n\n\ndef f():\n    try:\n"
           f"        {statement}\n    except AttributeError as exc:\n"
           "        return ['refused', str(exc), datetime.datetime.now().isoformat()]\n"
           "    return ['changed']\n")
    res = restricted(src)
    assert res.status == "ok", (res.status, res.message)
    assert res.output[0] == "refused", res.output
    assert "sandbox facade" in res.output[1]
    assert res.output[2] == "2026-12-01T07:00:00"  # the pinned clock, still
