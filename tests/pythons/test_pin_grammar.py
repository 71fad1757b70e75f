"""A `python:` pin has one grammar (runner/model/grammar.py PYTHON_PATTERN, read with
fullmatch): the manifest's pin, `Pin.parse` and the settings' `pythons` keys accept and refuse
the same texts."""

from __future__ import annotations

import pytest
from stepsmith.runner.model import grammar
from stepsmith.runner.pythons.pins import Pin
from stepsmith.runner.settings import SettingsError, load_settings

PINS = [
    ("3.13", Pin(3, 13)), ("3.9", Pin(3, 9)), ("3.13.5", Pin(3, 13, 5)),
    ("3.13.123", Pin(3, 13, 123)),
    ("3.13\n", None), ("3.13.5\n", None), ("3", None), ("3.", None), ("3.13.", None),
    ("3.123", None), ("3.13.1234", None), ("3.13.5.1", None), ("2.7", None), ("4.0", None),
    ("\uff13.13", None),  # fullwidth digit three
    ("3.\u0661\u0663", None),  # Arabic-Indic digits: isdigit() but not a version
    (" 3.13", None), ("3.x", None), ("", None), (3.13, None), (None, None),
]


@pytest.mark.parametrize(("text", "pin"), PINS)
def test_the_grammar_and_pin_parse_agree(text, pin):
    assert Pin.parse(text) == pin
    assert grammar.is_python_pin(text) is (pin is not None)


@pytest.mark.parametrize(("text", "pin"), [(t, p) for t, p in PINS if isinstance(t, str)])
def test_the_settings_accept_exactly_the_pins(tmp_path, text, pin):
    (tmp_path / "stepsmith.toml").write_text(
        f'pythons = {{ {text!r} = "/opt/python/bin/python3" }}\n'.replace("'", '"'))
    if pin is None:
        with pytest.raises(SettingsError, match="is not a version like"):
            load_settings(tmp_path)
    else:
        assert load_settings(tmp_path).pythons == {text: "/opt/python/bin/python3"}
