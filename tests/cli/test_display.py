"""The one display-text filter (runner/display.py) and the CLI's console that
applies it at rich's rendering edge, on a console that believes it is a colour terminal (so
rich's own styling is there and must survive)."""

import io
import json
import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st
from rich.table import Table
from stepsmith.runner.cli.console import SafeConsole
from stepsmith.runner.display import display_text, json_text

HOSTILE = "\x1b]52;c;ZXZp\x07\x1b[1A\x1b[2K\x9b31m\x7f\x08\r\x00\ud800\ufffe"
BAD = set(range(0x20)) - {9, 10} | {0x7F} | set(range(0x80, 0xA0))


def _term():
    buf = io.StringIO()
    return SafeConsole(file=buf, force_terminal=True, color_system="truecolor", width=120,
                       highlight=False), buf


def test_display_text_shows_every_control_as_a_visible_escape():
    shown = display_text(HOSTILE)
    assert shown == ("\\x1b]52;c;ZXZp\\x07\\x1b[1A\\x1b[2K\\x9b31m\\x7f\\x08\\x0d\\x00"
                     "\\ud800\\ufffe")
    assert display_text("tab\there\nnext é ✓") == "tab\there\nnext é ✓"


@given(st.text())
def test_display_text_is_xml_legal_and_terminal_safe(text):
    shown = display_text(text)
    assert not any(ord(c) in BAD or 0xD800 <= ord(c) <= 0xDFFF for c in shown)
    ET.fromstring(f"<a b='{shown.replace('&', '&amp;').replace('<', '&lt;').replace(chr(39), '&apos;')}'>"
                  f"{shown.replace('&', '&amp;').replace('<', '&lt;')}</a>".encode())
    assert display_text(shown) == shown  # nothing left to escape


@given(st.text())
def test_json_text_keeps_the_value(text):
    doc = json.dumps({"k": text}, ensure_ascii=False)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return  # json.dumps(ensure_ascii=False) keeps lone surrogates raw; loads reads them
    safe = json_text(doc)
    assert json.loads(safe) == {"k": text}
    assert not any(ord(c) in BAD for c in safe)


@given(st.text(alphabet=st.characters(codec=None)) | st.sampled_from(
    ["\x7f\x80\x9f\x9b\ufffe\uffff", "a\x7fb\xa0\ufffd\x9fz", ""]))
def test_json_text_escapes_exactly_what_its_table_names(text):
    # the table, applied character by character, is the reference
    from stepsmith.runner.display import _JSON_TABLE

    assert json_text(text) == text.translate(_JSON_TABLE)


def test_console_escapes_data_and_keeps_its_own_styling():
    con, buf = _term()
    con.print(f"[red]FAILED[/] {HOSTILE.replace('[', chr(92) + '[')}")  # as escape() does
    table = Table()
    table.add_column("name")
    table.add_row(HOSTILE)
    con.print(table)
    from rich.text import Text

    con.print(Text(HOSTILE, style="bold"))
    con.print(HOSTILE, markup=False)
    out = buf.getvalue()
    assert "\x1b[31mFAILED" in out or "\x1b[38;2" in out or "\x1b[31m" in out  # rich's own SGR
    data_escapes = [i for i in range(len(out)) if out[i] == "\x1b" and not out[i:].startswith(
        ("\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[38;", "\x1b[1;"))]
    assert data_escapes == [], repr(out)
    assert "\x07" not in out and "\x9b" not in out and "\x7f" not in out
    # str (markup or not) and table cells: every character shown; a Text built by hand had
    # BEL/BS/CR stripped by rich itself before the filter saw it (gone, never raw)
    assert out.count("\\x1b]52;c;ZXZp\\x07") == 3, out
    assert "\\x1b]52;c;ZXZp\\x1b[1A" in out, out
