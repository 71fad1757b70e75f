"""SS501: sampling needs an explicit seed. SS502: clock reads only on a spelled-out class.

`X.samples(n)` must carry a `seed=` keyword whose value is not the literal `None`, and must
be called directly (`s = nd.samples; s(3)` would dodge the check). A non-literal seed is
accepted; the sandbox refuses a `None` seed at run time too.
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import fix_edits, policy


def _seed_given(node: ast.Call) -> bool:
    for kw in node.keywords:
        if kw.arg == "seed":
            return not (isinstance(kw.value, ast.Constant) and kw.value.value is None)
    return False


def _seed_none(node: ast.Call) -> bool:
    return any(kw.arg == "seed" and isinstance(kw.value, ast.Constant) and kw.value.value is None
               for kw in node.keywords)


def check_samples_call(ctx, node: ast.Call, func: ast.Attribute) -> None:
    ctx.approved.add(id(func))
    if not _seed_given(node):
        what = ("with `seed=None` (unseeded) is not allowed: give it a seed"
                if _seed_none(node) else "without an explicit `seed=` is not allowed")
        ctx.report("SS501", ctx.pos.trailing_name_span(func), f"`.{func.attr}()` {what}",
                   data=fix_edits.add_seed(ctx, node))


def check_samples_attribute(ctx, node: ast.Attribute) -> None:
    if id(node) not in ctx.approved:
        ctx.report("SS501", ctx.pos.trailing_name_span(node),
                   f"`.{node.attr}` must be called directly with an explicit `seed=`")


def _dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _clock_message(attr: str) -> str:
    """Name the calls that exist: `date` has `today()` but no `now()`/`utcnow()`."""
    if attr == "today":
        ways = ("`datetime.date.today()` / `datetime.datetime.today()`, or `date.today()` "
                "after `from datetime import date`")
    else:
        ways = (f"`datetime.datetime.{attr}()`, or `datetime.{attr}()` after "
                "`from datetime import datetime`")
    return (f"`.{attr}()` is called on a value, which may bypass the pinned clock; call it "
            f"on the class: {ways}")


def check_clock_attribute(ctx, node: ast.Attribute) -> None:
    """SS502: `.now()`/`.today()`/`.utcnow()` only on `datetime.datetime`, `datetime.date`
    (or `datetime`/`date` imported from the module), not on an instance or an alias: an
    instance's `.now()` is its real class's, which may bypass the pinned clock."""
    dotted = _dotted(node.value)
    if dotted not in policy.CLOCK_RECEIVERS:
        ctx.report("SS502", ctx.pos.trailing_name_span(node), _clock_message(node.attr))
        return
    # ... and only while that name is the import: `date = d.date(); date.today()` is the
    # instance's real class (resolved when the statement's bindings are known)
    root = dotted.partition(".")[0]
    span = ctx.pos.trailing_name_span(node)
    attr = node.attr
    ctx.deferred.append((root, True, lambda: ctx.report(
        "SS502", span, f"`{dotted}.{attr}`: `{root}` is rebound in this function, so it may "
        "be an instance (the real, unpinned clock); use the imported class")))


_SAMPLING = policy.SAMPLING_METHODS
_CLOCK = policy.CLOCK_METHODS


def check_attribute(ctx, node: ast.Attribute) -> None:
    attr = node.attr
    if attr in _SAMPLING:
        check_samples_attribute(ctx, node)
    elif attr in _CLOCK:
        check_clock_attribute(ctx, node)


HANDLERS = {ast.Attribute: check_attribute}
