"""`describe`: a cron expression in words (the manifest's `cron:` inlay hint)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepsmith.runner.language.cron import describe, expand
from stepsmith.runner.manifest.model import check_cron

LONDON = "Europe/London"

CASES = [
    ("0 7 * * 1-5", LONDON, "07:00 on weekdays, Europe/London"),
    ("0 7 * * MON-FRI", LONDON, "07:00 on weekdays, Europe/London"),
    ("0 7 * * mon-fri", "UTC", "07:00 on weekdays, UTC"),
    ("0 7 * * 1-5", None, "07:00 on weekdays"),
    ("* * * * *", None, "every minute"),
    ("*/15 * * * *", "UTC", "every 15 minutes, UTC"),
    ("*/15 9-17 * * 1-5", None, "every 15 minutes from 09:00 to 17:45 on weekdays"),
    ("* 9 * * *", None, "every minute in the 09:00 hour"),
    ("*/5 9,17 * * *", None, "every 5 minutes in the 09:00 and 17:00 hours"),
    ("30 * * * *", None, "every hour at :30"),
    ("0,30 * * * *", None, "every hour at :00 and :30"),
    ("0 */2 * * *", None, "every 2 hours at :00"),
    ("0 9,17 * * *", None, "09:00 and 17:00 every day"),
    ("15 9 * * *", None, "09:15 every day"),
    ("0,30 9-17 * * *", None, "every hour at :00 and :30 from 09:00 to 17:00"),
    ("0,30 9,12,17 * * *", None, "09:00, 09:30, 12:00, 12:30, 17:00 and 17:30 every day"),
    ("0 0 1 * *", None, "00:00 on the 1st of the month"),
    ("0 0 1,15 * *", None, "00:00 on the 1st and 15th of the month"),
    ("0 0 2,3,22,23 * *", None, "00:00 on the 2nd, 3rd, 22nd and 23rd of the month"),
    ("0 0 11,12,13 * *", None, "00:00 on the 11th to 13th of the month"),
    ("0 0 */10 * *", None, "00:00 on the 1st, 11th, 21st and 31st of the month"),
    ("0 0 */2 * *", None, "00:00 every 2 days of the month from the 1st"),
    ("0 0 1-7 * 1", None, ("00:00 on the 1st to 7th of the month or on Mondays "
                           "(cron's OR rule: either day matches)")),
    ("0 0 */2 * 1", None, "00:00 every 2 days of the month from the 1st, on Mondays only"),
    ("0 12 * JAN,JUL *", None, "12:00 every day in January and July"),
    ("0 12 * 3-6 *", None, "12:00 every day from March to June"),
    ("0 12 1 6 *", None, "12:00 on 1 June"),
    ("0 8 * * 6,0", None, "08:00 on weekends"),
    ("0 8 * * SAT,SUN", None, "08:00 on weekends"),
    ("0 8 * * 7", None, "08:00 on Sundays"),
    ("5 4 * * sun", None, "04:05 on Sundays"),
    ("0 8 * * 1,3,5", None, "08:00 on Mondays, Wednesdays and Fridays"),
    ("0 8 * * 2-4", None, "08:00 from Tuesday to Thursday"),
    ("0 8 * * 1-5/2", None, "08:00 on Mondays, Wednesdays and Fridays"),
    ("*/90 * * * *", None, "every hour at :00"),  # a step longer than the range: one value
    ("@daily", LONDON, "00:00 every day, Europe/London"),
    ("@midnight", None, "00:00 every day"),
    ("@hourly", None, "every hour at :00"),
    ("@weekly", None, "00:00 on Sundays"),
    ("@monthly", None, "00:00 on the 1st of the month"),
    ("@yearly", None, "00:00 on 1 January"),
    ("@ANNUALLY", None, "00:00 on 1 January"),
    ("  0 7 * * 1-5  ", None, "07:00 on weekdays"),
    ("0 7 * * 1-5", "  Europe/\nLondon ", "07:00 on weekdays, Europe/ London"),
]


@pytest.mark.parametrize(("cron", "zone", "expected"), CASES)
def test_describe(cron, zone, expected):
    assert describe(cron, zone) == expected


INVALID = [
    "", "   ", "0 7 * *", "0 7 * * * *", "0 0 0 * * * 2026", "60 * * * *", "* 24 * * *",
    "* * 0 * *", "* * 32 * *", "* * * 13 *", "* * * * 8", "5-1 * * * *", "*/0 * * * *",
    "* * * * MON-FUNDAY", "* * * FOO *", "@reboot", "@every 5m", "0 7 * * 1-5 # comment",
    "0 ٧ * * *",  # an Arabic-Indic seven: isdigit() is True, cron's grammar is ASCII
    "０ 7 * * *",  # fullwidth zero
    "0 7 * * 1–5",  # en dash
    "0 7 * * 1,,5", "0 7 * * ,", "0 7 * * 1-", "*/ * * * *", "0\x007 * * *",
    "0 7 * * 1-5" * 40,  # huge
    "1," * 100_000 + "1 * * * *",  # huge and otherwise valid: refused unread
]


@pytest.mark.parametrize("cron", INVALID)
def test_invalid_is_none(cron):
    assert describe(cron, LONDON) is None


@pytest.mark.parametrize("value", [None, 7, b"0 7 * * *", ["0", "7"], object()])
def test_not_a_string_is_none(value):
    assert describe(value, LONDON) is None


def test_enough_cases():
    assert len(CASES) + len(INVALID) >= 30


def test_expand():
    assert expand("0 7 * * 1-5") == ((0,), (7,), tuple(range(1, 32)), tuple(range(1, 13)),
                                     (1, 2, 3, 4, 5))
    assert expand("0 0 * * 7")[4] == (0,)
    assert expand("0 0 * * 0-7")[4] == tuple(range(7))
    assert expand("nonsense") is None


_ITEM = st.one_of(
    st.just("*"), st.integers(0, 70).map(str),
    st.tuples(st.integers(0, 40), st.integers(0, 40)).map(lambda t: f"{t[0]}-{t[1]}"),
    st.tuples(st.sampled_from(["*", "1-20", "3"]), st.integers(0, 30)).map(lambda t: f"{t[0]}/{t[1]}"),
    st.sampled_from(["mon", "FRI", "jan", "Dec", "x", "-", ""]),
)
_FIELD = st.lists(_ITEM, min_size=1, max_size=3).map(",".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FIELD, min_size=4, max_size=6).map(" ".join))
def test_agrees_with_the_manifest_grammar(cron):
    """A hint exactly when the manifest accepts the expression (one grammar), never a raise."""
    try:
        check_cron(cron)
        valid = True
    except ValueError:
        valid = False
    text = describe(cron, "UTC")
    assert (text is not None) == valid
    if text is not None:
        assert text.endswith(", UTC") and "\n" not in text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.one_of(st.none(), st.text(max_size=30)))
def test_never_raises(cron, zone):
    text = describe(cron, zone)
    assert text is None or isinstance(text, str)
