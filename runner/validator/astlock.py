"""One lock for every syntax tree this process builds or compiles.

CPython 3.11 keeps the AST converter's recursion depth in per-interpreter state (gh-106905):
when two threads convert at once (a garbage collection between two node allocations runs
Python code, and the GIL can pass to another thread there), the count is corrupted and one of
them fails with `SystemError: AST constructor recursion depth mismatch`. stepsmith parses on
several threads (the fixture pool validates and analyses coverage, the server's workers), so
every conversion between source, `ast` objects and code holds this lock. Re-entrant: a
collection inside a conversion may finalise something that parses on the same thread.
The validator imports it, so it ships into the sandbox too (one thread there: free).
"""

from __future__ import annotations

import _thread  # not `threading`: the validator also runs inside every sandbox

AST_LOCK = _thread.RLock()
