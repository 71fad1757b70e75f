"""SS106: a name an allowed module does not have in the Python the workflow pins
(`from math import fma` pinned to 3.11: "`math.fma` is new in Python 3.13; this workflow pins
3.11"), as `from m import name` and as `m.name` where `m` is the module's own name and the
function does not bind it itself (validator/checks/modules.py tracks the bindings).

The names come from validator/module_names.py, a table asked of the interpreters themselves
(runner/pythons/module_table.py; drift-tested). A version the table does not know is not
checked. The facades in the sandbox expose exactly these names, so a name reported here would
fail there as an AttributeError or ImportError.
"""

from __future__ import annotations

import _ast as ast  # node classes only

from stepsmith.runner.validator import module_names


def refusal(module: str, name: str, version) -> str | None:
    """Why `module.name` does not exist in `version` ((3, minor) or None); None when it does
    or the table cannot say."""
    if version is None or version[1] not in module_names.VERSIONS:
        return None
    always = module_names.ALWAYS.get(module)
    if always is None or name in always:
        return None
    minor = version[1]
    pins = f"this workflow pins {version[0]}.{minor}"
    span = module_names.CHANGED.get(module, {}).get(name)
    if span is None:
        return f"`{module}` has no name `{name}` in Python {version[0]}.{minor}"
    first, last = span
    if minor < first:
        return f"`{module}.{name}` is new in Python {version[0]}.{first}; {pins}"
    if minor > last:
        return f"`{module}.{name}` was removed in Python {version[0]}.{last + 1}; {pins}"
    return None


def check_import_from(ctx, node) -> None:
    if node.level or node.module not in module_names.ALWAYS:
        return
    for alias in node.names:
        if alias.name == "*":  # SS104's: a star import names nothing to look up
            continue
        why = refusal(node.module, alias.name, ctx.version)
        if why is not None:
            ctx.report("SS106", ctx.pos.name_in_node(alias, alias.name), why)


def report_reads(ctx, reads) -> None:
    """`m.name` reads whose `m` the function did not bind (modules.py `_resolve`)."""
    for module, name, span in reads:
        why = refusal(module, name, ctx.version)
        if why is not None:
            ctx.report("SS106", span, why)


HANDLERS = {ast.ImportFrom: check_import_from}
