"""In-process unit tests of the LSP layer: document edits and encodings, coalescing."""

from __future__ import annotations

import threading

from stepsmith.runner.problems import Span
from stepsmith.server.convert import UTF8, UTF16, from_codepoints, lsp_range, to_codepoints
from stepsmith.server.documents import Document
from stepsmith.server.scheduler import Scheduler


def test_encodings_round_trip_on_non_ascii():
    line = "a𝔘é😀b"
    for cp in range(len(line) + 1):
        for enc in (UTF16, UTF8):
            assert to_codepoints(line, from_codepoints(line, cp, enc), enc) == cp
    assert from_codepoints(line, 2, UTF16) == 3 and from_codepoints(line, 2, UTF8) == 5
    # inside a surrogate pair / a UTF-8 sequence rounds down to the character
    assert to_codepoints(line, 2, UTF16) == 1
    assert to_codepoints(line, 3, UTF8) == 1
    # past the end clamps
    assert to_codepoints(line, 99, UTF16) == len(line)


def test_document_edits_and_clamping():
    d = Document("file:///x.py", "python", 1, "ab\r\ncd\nef")
    d.apply((0, 2), (1, 0), "", UTF16)  # join across \r\n
    assert d.text == "abcd\nef"
    d.apply((5, 0), (9, 9), "!", UTF16)  # past the end: appended at the end
    assert d.text == "abcd\nef!"
    d.apply((1, 1), (0, 1), "X", UTF16)  # reversed range: empty at start
    assert d.text == "abcd\neXf!"
    d = Document("file:///x.py", "python", 1, "a\r")
    d.apply((1, 0), (1, 0), "\nb", UTF16)  # \r + \n become one line break
    assert d.text == "a\r\nb" and d.lines == ["a\r\n", "b"]
    d.apply(None, None, "new", UTF16)
    assert d.lines == ["new"]


def test_lsp_range_clamps_to_document():
    lines = ["x = '𝔘'\n", "y"]
    r = lsp_range(Span(1, 5, 1, 6), lines, UTF16)
    assert r["start"] == {"line": 0, "character": 5} and r["end"] == {"line": 0, "character": 7}
    r = lsp_range(Span(9, 0, 9, 1), lines, UTF16)
    assert r["start"] == {"line": 1, "character": 1}


class _FakeLS:
    def __init__(self):
        self.loop = None
        self.processed = []

    def awaiting_ready(self) -> bool:  # the server's public "does a request wait?" question
        return False


def test_analyzer_coalesces_a_burst_into_one_job():
    ls = _FakeLS()
    an = Scheduler(None, ls)
    gate = threading.Event()
    started = threading.Event()

    def process_doc(uri):
        if uri == "block":
            started.set()
            gate.wait(10)
        ls.processed.append(uri)

    an._process_doc = process_doc
    an.schedule("doc", "block")
    assert started.wait(10)
    for _ in range(500):  # a burst of edits while the worker is busy
        an.schedule("doc", "file:///a.py")
    an.schedule("doc", "file:///b.py", front=True)
    gate.set()
    for _ in range(1000):
        if an.idle():
            break
        threading.Event().wait(0.01)
    assert ls.processed == ["block", "file:///b.py", "file:///a.py"]
    an.stop()


def test_every_handler_module_is_registered_once():
    # two helpers each appended "inlay_hint": pygls refused the second registration and the
    # server exited at start-up (FeatureAlreadyRegisteredError)
    from pathlib import Path

    from stepsmith.server import handlers
    from stepsmith.server.server import create_server

    assert len(handlers.HANDLERS) == len(set(handlers.HANDLERS))
    for name in handlers.HANDLERS:
        assert (Path(handlers.__file__).parent / f"{name}.py").is_file(), name
    create_server()  # registers every handler: raises on a method registered twice


def test_production_modules_read_no_test_switches():
    """Issue 21: the test-suite injects its hooks (tests/kits/hooked_server.py); no module of
    the product reads a STEPSMITH_TEST_* variable."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for folder in ("server", "runner"):
        for path in sorted((root / folder).rglob("*.py")):
            assert "STEPSMITH_TEST_" not in path.read_text(), path


def test_a_fixture_result_anchors_on_the_top_level_expected_key():
    """Issue 21: the substring search anchored on an input named "expected"; the exact JSON
    locator finds the fixture's own `expected` key."""
    import json

    from stepsmith.runner.lines import split_lines
    from stepsmith.server.run_results import anchor_in

    text = json.dumps({"inputs": {"expected": "x", "é": 1}, "expected": {"output": 1}}, indent=2,
                      ensure_ascii=False)
    lines = split_lines(text.replace("\n", "\r\n"))
    span = anchor_in(lines)
    assert (span.line, lines[span.line - 1][span.column:span.end_column]) == (6, '"expected"')
    assert anchor_in(split_lines("{not json")) == Span(1, 0, 1, 1)
