"""The terminal every `stepsmith` command writes to: rich consoles that pass every piece of
text through the one display-text filter (runner/display.py), and `say` for plain lines.

`SafeConsole` filters at two points of rich's own pipeline, so no caller can forget it:
`render_str` (a str becomes Text: before markup and layout, so widths count the visible
escapes, and before rich strips BEL/BS/CR, so those are shown too) and `render` (every
segment any renderable yields: tables, syntax-highlighted diffs, JSON, Text built by hand).
Control segments are rich's own cursor movements (progress bars) and pass untouched; styling
is added after `render`, from Style objects, never from the text.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.segment import Segment
from stepsmith.runner.display import display_text


class SafeConsole(Console):
    def render_str(self, text: str, **kwargs: Any):
        return super().render_str(display_text(text), **kwargs)

    def render(self, renderable, options=None):
        for seg in super().render(renderable, options):
            if seg.control is None and seg.text:
                clean = display_text(seg.text)
                if clean != seg.text:
                    seg = Segment(clean, seg.style, seg.control)
            yield seg


def console(*, stderr: bool = False, **kwargs: Any) -> SafeConsole:
    """The CLI's console (stdout, or stderr), highlighting off and soft wrap on unless asked."""
    kwargs.setdefault("highlight", False)
    kwargs.setdefault("soft_wrap", True)
    return SafeConsole(stderr=stderr, **kwargs)


def say(*parts: object, err: bool = False, sep: str = " ") -> None:
    """print() for a plain line that may hold workflow data."""
    print(display_text(sep.join(str(p) for p in parts)), file=sys.stderr if err else sys.stdout)
