"""The workflow check's disk reads of step files (runner/manifest/stepfiles.py): a file is read
again when its stamp changed, and also while its stamp is too recent to tell two writes apart
(a coarse file-system clock: FAT's 2 s, a jiffy on kernels without fine-grained timestamps),
as git's "racily clean" entries and `check`'s cache (runner/app/check_cache.py) do. The
language server and `--watch` keep this cache for their life: a run or a recording after an
undo-and-save must read the saved text."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from stepsmith.runner import safeio
from stepsmith.runner.manifest import stepfiles


def _coarse_clock(monkeypatch, path: Path, seconds_ago: float) -> None:
    """`path`'s stamp stays the one of its first write, `seconds_ago` old, whatever is written
    after (same size writes within one tick of a coarse clock)."""
    first = path.stat()
    at = time.time_ns() - int(seconds_ago * 1e9)
    frozen = SimpleNamespace(st_mtime_ns=at, st_ctime_ns=at, st_size=first.st_size,
                             st_ino=first.st_ino)
    real = Path.stat

    def stat(self, *args, **kwargs):
        return frozen if self == path else real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)


def test_a_step_file_rewritten_within_one_clock_tick_is_read_again(tmp_path, monkeypatch):
    p = tmp_path / "risk.py"
    p.write_text("import os\n")
    _coarse_clock(monkeypatch, p, seconds_ago=0)
    assert stepfiles._read_step_from_disk(p, tmp_path)[0] == "import os\n"
    p.write_text("import re\n")  # the same size, the same stamp: only the bytes tell
    assert stepfiles._read_step_from_disk(p, tmp_path)[0] == "import re\n"


def test_a_step_file_with_an_old_stamp_is_read_once(tmp_path, monkeypatch):
    p = tmp_path / "risk.py"
    p.write_text("x = 1\n")
    _coarse_clock(monkeypatch, p, seconds_ago=10)
    reads = []
    real = safeio.read_bytes
    monkeypatch.setattr(safeio, "read_bytes", lambda *a, **kw: reads.append(a) or real(*a, **kw))
    first = stepfiles._read_step_from_disk(p, tmp_path)
    assert stepfiles._read_step_from_disk(p, tmp_path) == first == ("x = 1\n", stepfiles._digest("x = 1\n"), None)
    assert len(reads) == 1
