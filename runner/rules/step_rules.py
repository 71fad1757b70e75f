"""Step-code rules (SS codes) reported by `stepsmith.runner.validator`.

Codes are stable forever: never renumber, only add. Ranges (docs/ARCHITECTURE.md):
SS0xx meta, SS1xx imports, SS2xx private/dunder/string traversal, SS3xx introspection and
dynamic code, SS4xx forbidden constructs, SS5xx determinism, SS6xx effects.

`example` is a snippet the rule refuses and `fix` a close one it accepts; the catalogue test
validates both (SS105's `fix` is validated as used by a `public_egress` step, the SS6xx ones
as used by step `draft` declaring effect `draft_bill` with key `invoice_id`). For the meta
rules SS002-SS004 the example is a description, not code.
"""

from __future__ import annotations

from stepsmith.runner.rules import Rule

RULES: list[Rule] = [
    # --- SS0xx: the file itself ---------------------------------------------------------------
    Rule(
        "SS001", "syntax-error", "The file is not valid Python.",
        "Code that does not parse cannot be checked, reviewed or run.",
        example="def match(invoice:\n    return invoice\n",
        fix="def match(invoice):\n    return invoice\n",
    ),
    Rule(
        "SS002", "file-too-large", "The file is larger than the size cap (1 MiB).",
        "Step code is small by design; the cap keeps hostile input from stalling the editor or CI.",
        example="(a step file of more than 1,048,576 bytes)",
        fix="(split the work into several small steps wired in the manifest)",
    ),
    Rule(
        "SS003", "validator-failed-closed", "The validator could not finish checking the file.",
        "Code that could not be checked is refused, never waved through (fail closed).",
        example="(input that made the validator fail internally, e.g. a pathologically deep "
        "expression)",
        fix="(simplify the code; report a bug if ordinary code triggers this)",
    ),
    Rule(
        "SS004", "not-utf8", "The file is not valid UTF-8 text.",
        "Step code is reviewed as text; bytes that are not UTF-8 may read differently than they run.",
        example="(a file containing the byte 0xFF)",
        fix="(save the file as UTF-8)",
    ),
    # --- SS1xx: imports -------------------------------------------------------------------------
    Rule(
        "SS101", "import-not-allowed",
        "Import of a module outside json, math, decimal, datetime, statistics and re.",
        "Nothing else is installed in the sandbox, and other modules reach files, processes or clocks.",
        example="import os\n",
        fix="import json\n",
    ),
    Rule(
        "SS102", "submodule-import", "Import of a submodule of an allowed module.",
        "Only the public facade of an allowed module exists in the sandbox; submodules are internals.",
        example="from json import decoder\n",
        fix="from json import JSONDecodeError\n",
    ),
    Rule(
        "SS103", "relative-import", "A relative import (`from . import x`).",
        "A step file stands alone in the sandbox; there is no package to import from.",
        example="from . import helpers\n",
        fix="import json\n",
    ),
    Rule(
        "SS104", "star-import", "A star import (`from m import *`).",
        "A star import hides which names a step uses, so a reviewer cannot see what it reaches.",
        example="from math import *\n",
        fix="from math import floor, isclose\n",
    ),
    Rule(
        "SS105", "network-import-needs-egress",
        "`urllib.request|parse|error` imported by a file not used only by public_egress steps.",
        "Network access is granted per step in the manifest; code of a `network: none` step "
        "cannot reach it.",
        example="import urllib.request\n",
        fix="import urllib.request\n",
    ),
    Rule(
        "SS106", "name-not-in-pinned-python",
        "A name the module does not have in the Python the workflow pins (`math.fma` pinned "
        "to 3.11).",
        "Steps run on the Python their manifest pins; a name new in a later version (or gone "
        "from it) fails there, whatever the author's own Python has.",
        example="from math import fma\n",
        fix="from math import fsum\n",
    ),
    # --- SS2xx: private names, dunders and traversal through strings -------------------------------
    Rule(
        "SS201", "private-attribute", "Access to a private or dunder attribute (`x._y`, `x.__class__`).",
        "Underscore attributes lead from ordinary values to classes, globals and the builtins.",
        example="def step(invoice):\n    return invoice.__class__\n",
        fix="def step(invoice):\n    return type(invoice) is dict\n",
    ),
    Rule(
        "SS202", "dunder-name",
        "A name starting with a double underscore (`__builtins__`, `__name__`, `__x`).",
        "Dunder names are the interpreter's own machinery, not step logic.",
        example="def step(invoice):\n    return __builtins__\n",
        fix="def step(invoice):\n    return _total(invoice)\n\n\ndef _total(invoice):\n    "
        "return invoice['total']\n",
    ),
    Rule(
        "SS203", "dynamic-attribute-name",
        "`getattr`/`setattr`/`delattr`/`hasattr` with a name that is not a string literal, or "
        "used other than by a direct call.",
        "A computed attribute name (`'_' + '_class__'`) cannot be checked before the code runs.",
        example="def step(invoice, field):\n    return getattr(invoice, field)\n",
        fix="def step(invoice, field):\n    return invoice[field]\n",
    ),
    Rule(
        "SS204", "refused-attribute-by-string",
        "`getattr`-family call naming an attribute the other rules refuse (`getattr(x, '_y')`).",
        "Naming an attribute in a string reaches exactly what spelling it in code would.",
        example="def step(gen):\n    return getattr(gen, 'gi_frame')\n",
        fix="def step(when):\n    return getattr(when, 'year')\n",
    ),
    Rule(
        "SS205", "format-string-traversal",
        "A format string whose fields reach a refused attribute (`'{0.__class__}'.format(x)`).",
        "`str.format` follows `.attr` in field names at run time, the same as code would.",
        example="def step(invoice):\n    return '{0.__class__}'.format(invoice)\n",
        fix="def step(invoice):\n    return '{0[number]}: {0[total]}'.format(invoice)\n",
    ),
    Rule(
        "SS206", "dynamic-format-string",
        "`.format`/`.format_map` on a string that is not a literal.",
        "A format string built at run time can traverse attributes the validator cannot see; "
        "use an f-string, `%` or a literal.",
        example="def step(template, invoice):\n    return template.format(invoice)\n",
        fix="def step(invoice):\n    return f\"{invoice['number']} is due\"\n",
    ),
    # --- SS3xx: introspection and dynamic code -----------------------------------------------------
    Rule(
        "SS301", "forbidden-builtin",
        "Use of eval, exec, compile, __import__, open, globals, locals, vars, dir, breakpoint, "
        "input, help or memoryview.",
        "These run code built at run time, read files or expose scopes; a step needs none of them.",
        example="def step(expression):\n    return eval(expression)\n",
        fix="import json\n\n\ndef step(expression):\n    return json.loads(expression)\n",
    ),
    Rule(
        "SS302", "dynamic-type",
        "`type` other than `type(x)` compared directly (`type(x) is dict`); no three-argument "
        "`type`.",
        "Three-argument `type` creates classes (the dialect has none), and `type(cls)` is `type` itself.",
        example="def step(invoice):\n    return type('Invoice', (), {})\n",
        fix="def step(invoice):\n    return type(invoice) is dict\n",
    ),
    Rule(
        "SS303", "frame-or-code-attribute",
        "Access to frame, code, traceback or generator internals (`gi_frame`, `f_back`, "
        "`f_globals`, `tb_frame`, `co_code`, `cr_frame`, ...).",
        "Frames reach the globals and builtins of the harness itself.",
        example="def step(items):\n    gen = (i for i in items)\n    return gen.gi_frame.f_back\n",
        fix="def step(items):\n    gen = (i for i in items)\n    return list(gen)\n",
    ),
    Rule(
        "SS304", "mro-access", "Call or access of `mro` on a class.",
        "`datetime.datetime.mro()[1]` is the real, unpinned class behind the sandbox's clock.",
        example="import datetime\n\n\ndef step():\n    return datetime.datetime.mro()[1].now()\n",
        fix="import datetime\n\n\ndef step():\n    return datetime.datetime.now()\n",
    ),
    Rule(
        "SS305", "module-internals",
        "Access to an attribute naming a module the allowed modules import internally "
        "(`json.codecs`, `datetime.sys`, `statistics.random`, `re.functools`, ...).",
        "Allowed modules leak their own imports (`json.codecs.builtins` is the full builtins), "
        "whatever name they are reached through.",
        example="import json\n\n\ndef step():\n    return json.codecs\n",
        fix="import json\n\n\ndef step(text):\n    return json.loads(text)\n",
    ),
    # --- SS4xx: forbidden constructs -----------------------------------------------------------------
    Rule(
        "SS401", "class-definition", "A class definition.",
        "Classes bring metaclasses, descriptors and dunder hooks; steps are plain functions.",
        example="class Matcher:\n    pass\n",
        fix="def matcher(invoice):\n    return invoice\n",
    ),
    Rule(
        "SS402", "async-code", "`async def`, `await`, `async for`, `async with` or an async "
        "comprehension.",
        "Steps run synchronously, one call per sandbox; there is no event loop.",
        example="async def step(invoice):\n    return invoice\n",
        fix="def step(invoice):\n    return invoice\n",
    ),
    Rule(
        "SS403", "global-or-nonlocal", "A `global` or `nonlocal` statement.",
        "A step's result must depend only on its inputs, not on state shared between calls.",
        example="def step(invoice):\n    global seen\n    seen = invoice\n",
        fix="def step(invoice):\n    seen = invoice\n    return seen\n",
    ),
    Rule(
        "SS404", "decorator", "A decorator on a function.",
        "Wiring belongs in the manifest, and a decorator runs code when the file is loaded.",
        example="def log(f):\n    return f\n\n\n@log\ndef step(invoice):\n    return invoice\n",
        fix="def step(invoice):\n    return invoice\n",
    ),
    Rule(
        "SS405", "top-level-statement",
        "A top-level statement other than a function definition, an import or a docstring.",
        "Loading the file must not run step logic; constants live in functions or the manifest.",
        example="TOLERANCE = 0.01\n",
        fix="def tolerance():\n    return 0.01\n",
    ),
    Rule(
        "SS406", "module-attribute-assignment",
        "Assignment to, or `del` of, an attribute of an imported module or of a name imported "
        "from one.",
        "Rebinding `datetime.datetime` swaps the pinned clock for the real one behind every "
        "later call the rules approved.",
        example="import datetime\n\n\ndef step(due):\n"
        "    datetime.datetime = datetime.datetime.min\n    return datetime.datetime.now()\n",
        fix="import datetime\n\n\ndef step(due):\n    return datetime.datetime.now()\n",
    ),
    # --- SS5xx: determinism --------------------------------------------------------------------------
    Rule(
        "SS501", "unseeded-sampling", "`.samples(n)` called without an explicit `seed=`.",
        "A run must be reproducible: sampling without a seed gives a different answer every time.",
        example="import statistics\n\n\ndef step(mu, sigma):\n"
        "    return statistics.NormalDist(mu, sigma).samples(10)\n",
        fix="import statistics\n\n\ndef step(mu, sigma, seed):\n"
        "    return statistics.NormalDist(mu, sigma).samples(10, seed=seed)\n",
    ),
    Rule(
        "SS502", "clock-via-instance",
        "`.now()`, `.today()` or `.utcnow()` called on a value instead of the class "
        "`datetime.datetime` / `datetime.date` (or `datetime` / `date` imported from it).",
        "An instance's `.now()` is its real class's, bypassing the pinned clock (a naive read is "
        "the evaluation time in the workflow's timezone).",
        example="import datetime\n\n\ndef step(due):\n"
        "    return datetime.date.fromisoformat(due).today()\n",
        fix="import datetime\n\n\ndef step(due):\n"
        "    return datetime.date.fromisoformat(due) < datetime.date.today()\n",
    ),
    Rule(
        "SS503", "memory-address", "Use of the builtin `id` (an object's memory address).",
        "Memory addresses differ between runs, so a result built from one cannot be replayed.",
        example="def step(invoice):\n    return {'ref': id(invoice)}\n",
        fix="def step(invoice):\n    return {'ref': invoice['id']}\n",
    ),
    # --- SS6xx: effects (checked against the manifest's declarations) ------------------------------
    Rule(
        "SS601", "emit-undeclared-effect",
        "`effects.emit` names an effect the step does not declare under its `effects`.",
        "A step may only record the effects its manifest entry grants; the run refuses any other.",
        example="def draft(match, effects):\n"
        "    effects.emit('draft_bil', {'invoice_id': match['invoice']})\n",
        fix="def draft(match, effects):\n"
        "    effects.emit('draft_bill', {'invoice_id': match['invoice']})\n",
    ),
    Rule(
        "SS602", "effect-payload-without-key",
        "An `effects.emit` payload literal that is not a dict or lacks the effect's key field.",
        "The key field identifies the effect's target, so a replayed run records the same intent.",
        example="def draft(match, effects):\n"
        "    effects.emit('draft_bill', {'total': match['total']})\n",
        fix="def draft(match, effects):\n"
        "    effects.emit('draft_bill', {'invoice_id': match['invoice'], "
        "'total': match['total']})\n",
    ),
]

BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
