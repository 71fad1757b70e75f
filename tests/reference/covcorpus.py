"""A seeded generator of small step files in the dialect, for the coverage comparison.

Each file holds one step function `step(n, items, word)` (plus, sometimes, helpers: one it
calls, one nothing calls) built from the constructs whose arcs are easy to get wrong:
if/elif/else, for and while loops with break/continue/else, comprehensions and generator
expressions (some left unfinished by any()/all()/next()), try/except/else/finally, match,
short-circuit conditions, nested functions and lambdas, `with` blocks ending in an `if`,
one-line compound statements, early returns, `while True` with break, multi-line statements
and generator functions (with a try/finally) left unfinished. Every loop is bounded, every exception the
code can raise is caught, so each call returns a JSON value.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

WORDS = ["", "a", "x", "hello"]


@dataclass
class Generated:
    stem: str
    source: str
    cases: list[dict]  # inputs of each fixture


class _Gen:
    def __init__(self, rnd: random.Random):
        self.r = rnd
        self.helpers: list[str] = []
        self.uses_localcontext = False
        self.fresh = 0
        self.yielders = False

    def name(self, base: str) -> str:
        self.fresh += 1
        return f"{base}{self.fresh}"

    def c(self) -> int:
        return self.r.randint(0, 6)

    def cond(self, loopvar: str | None = None) -> str:
        v = loopvar or self.r.choice(["n", "len(items)", "total"])
        opts = [f"{v} > {self.c()}", f"{v} % 2 == 0", f"{v} == {self.c()}",
                f"{v} > {self.c()} and word", f"{v} < {self.c()} or not items",
                f"word == {self.r.choice(WORDS)!r}", f"{v} in ({self.c()}, {self.c()})"]
        return self.r.choice(opts)

    def simple(self, ind: str, loopvar: str | None) -> list[str]:
        v = loopvar or "n"
        return [self.r.choice([f"{ind}total += {v}", f"{ind}out.append({v} * 2)",
                               f"{ind}total -= {self.c()}", f"{ind}out.append(len(out))"])]

    def block(self, ind: str, depth: int, loopvar: str | None = None, in_loop: bool = False,
              size: int | None = None) -> list[str]:
        out: list[str] = []
        for _ in range(size or self.r.randint(1, 3)):
            out += self.stmt(ind, depth, loopvar, in_loop)
        return out

    def stmt(self, ind: str, depth: int, loopvar: str | None, in_loop: bool) -> list[str]:
        kinds = ["simple", "simple", "comp", "gen", "short", "oneline"]
        if depth < 2:
            kinds += ["if", "if", "for", "while", "try", "match", "with", "nested", "forever",
                      "multiline", "yielder"]
        if in_loop:
            kinds += ["jump"]
        if not in_loop:
            kinds += ["early"]
        k = self.r.choice(kinds)
        return getattr(self, "k_" + k)(ind, depth, loopvar, in_loop)

    def k_simple(self, ind, depth, lv, loop):
        return self.simple(ind, lv)

    def k_jump(self, ind, depth, lv, loop):
        return [f"{ind}if {self.cond(lv)}:", f"{ind}    {self.r.choice(['break', 'continue'])}"]

    def k_early(self, ind, depth, lv, loop):
        return [f"{ind}if {self.cond(lv)}:", f"{ind}    return [total, out[:4]]"]

    def k_if(self, ind, depth, lv, loop):
        lines = [f"{ind}if {self.cond(lv)}:"] + self.block(ind + "    ", depth + 1, lv, loop)
        for _ in range(self.r.randint(0, 2)):
            lines += [f"{ind}elif {self.cond(lv)}:"] + self.block(ind + "    ", depth + 1, lv,
                                                                   loop)
        if self.r.random() < 0.5:
            lines += [f"{ind}else:"] + self.block(ind + "    ", depth + 1, lv, loop)
        return lines

    def k_for(self, ind, depth, lv, loop):
        var = self.name("x")
        lines = [f"{ind}for {var} in items:"] + self.block(ind + "    ", depth + 1, var, True)
        if self.r.random() < 0.4:
            lines += [f"{ind}else:"] + self.block(ind + "    ", depth + 1, lv, loop, 1)
        return lines

    def k_while(self, ind, depth, lv, loop):
        var = self.name("k")
        lines = [f"{ind}{var} = 0", f"{ind}while {var} < {self.r.randint(0, 4)}:",
                 f"{ind}    {var} += 1"] + self.block(ind + "    ", depth + 1, var, True)
        if self.r.random() < 0.4:
            lines += [f"{ind}else:"] + self.block(ind + "    ", depth + 1, lv, loop, 1)
        return lines

    def k_comp(self, ind, depth, lv, loop):
        c = self.c()
        return [self.r.choice([
            f"{ind}out.extend([y * 2 for y in items if y > {c}])",
            f"{ind}total += len({{y % 3 for y in items}})",
            f"{ind}total += len({{y: y + 1 for y in items if y != {c}}})",
            f"{ind}total += sum(y for y in items if y % 2)",
            f"{ind}out.extend([a + b for a in items[:2] for b in items[:2] if a < b])",
        ])]

    def k_gen(self, ind, depth, lv, loop):
        c = self.c()
        g = self.name("g")
        return self.r.choice([
            [f"{ind}if any(y > {c} for y in items):", f"{ind}    total += 1"],
            [f"{ind}if all(y < {c} for y in items):", f"{ind}    total -= 1"],
            [f"{ind}total += next((y for y in items if y > {c}), 0)"],
            [f"{ind}{g} = (y * 2 for y in items)", f"{ind}total += next({g}, -1)"],
        ])

    def k_short(self, ind, depth, lv, loop):
        v = lv or "n"
        return [self.r.choice([
            f"{ind}flag = {v} > {self.c()} and len(items) > {self.c()} or word == 'x'",
            f"{ind}total += ({v} and 1) or 2",
            f"{ind}out.append(len(word or 'none'))",
        ])]

    def k_oneline(self, ind, depth, lv, loop):
        v = self.name("z")
        return [self.r.choice([
            f"{ind}for {v} in items: total += {v}",
            f"{ind}while total > 40: total -= 7",
            f"{ind}if {self.cond(lv)}: total += 3",
            f"{ind}for {v} in items[:2]: out.append({v})",
        ])]

    def k_try(self, ind, depth, lv, loop):
        v = lv or "n"
        c = self.c()
        lines = [f"{ind}try:"]
        lines += self.r.choice([
            [f"{ind}    total += {c} // ({v} - {self.c()})"],
            [f"{ind}    total += {{'a': 1, 'x': 2}}[word]"],
            [f"{ind}    total += items[{c}]"],
        ])
        lines += [f"{ind}except (ZeroDivisionError, KeyError, IndexError) as exc:"]
        lines += self.block(ind + "    ", depth + 1, lv, loop, 1)
        if self.r.random() < 0.4:
            lines += [f"{ind}else:"] + self.block(ind + "    ", depth + 1, lv, loop, 1)
        if self.r.random() < 0.5:
            lines += [f"{ind}finally:", f"{ind}    out.append({self.c()})"]
        return lines

    def k_match(self, ind, depth, lv, loop):
        if self.r.random() < 0.5:
            lines = [f"{ind}match n:", f"{ind}    case 0:"]
            lines += self.block(ind + "        ", depth + 1, lv, loop, 1)
            lines += [f"{ind}    case 1 | 2:"] + self.block(ind + "        ", depth + 1, lv, loop, 1)
            lines += [f"{ind}    case m if m > {self.c()}:", f"{ind}        total += m"]
        else:
            lines = [f"{ind}match items:", f"{ind}    case []:"]
            lines += self.block(ind + "        ", depth + 1, lv, loop, 1)
            lines += [f"{ind}    case [first]:", f"{ind}        total += first"]
            lines += [f"{ind}    case [first, *rest] if rest:", f"{ind}        total += len(rest)"]
        if self.r.random() < 0.6:
            lines += [f"{ind}    case _:"] + self.block(ind + "        ", depth + 1, lv, loop, 1)
        return lines

    def k_with(self, ind, depth, lv, loop):
        self.uses_localcontext = True
        ctx = self.name("ctx")
        lines = [f"{ind}with localcontext() as {ctx}:", f"{ind}    {ctx}.prec = 6"]
        lines += self.block(ind + "    ", depth + 1, lv, loop, 1)
        lines += [f"{ind}    if {self.cond(lv)}:"] + self.simple(ind + "        ", lv)
        return lines

    def k_forever(self, ind, depth, lv, loop):
        var = self.name("k")
        return [f"{ind}{var} = 0", f"{ind}while True:", f"{ind}    {var} += 1",
                f"{ind}    if {var} > {self.r.randint(0, 3)}:", f"{ind}        break"] + \
            self.block(ind + "    ", depth + 1, var, True, 1)

    def k_multiline(self, ind, depth, lv, loop):
        v = lv or "n"
        return self.r.choice([
            [f"{ind}if ({v} > {self.c()} and", f"{ind}        len(items) > {self.c()}):"]
            + self.block(ind + "    ", depth + 1, lv, loop, 1),
            [f"{ind}out.extend([", f"{ind}    y + {v}", f"{ind}    for y in items",
             f"{ind}    if y > {self.c()}", f"{ind}])"],
            [f"{ind}total += (", f"{ind}    {v} if {v} > {self.c()}", f"{ind}    else -1",
             f"{ind})"],
            [f"{ind}for y in (", f"{ind}    items", f"{ind}):"]
            + self.block(ind + "    ", depth + 1, "y", True, 1),
        ])

    def k_yielder(self, ind, depth, lv, loop):
        self.yielders = True
        c = self.c()
        return self.r.choice([
            [f"{ind}total += next(evens(items), {c})"],
            [f"{ind}for y in evens(items):", f"{ind}    total += y",
             f"{ind}    if y > {c}:", f"{ind}        break"],
            [f"{ind}total += sum(evens(items[:{c}]))"],
        ])

    def k_nested(self, ind, depth, lv, loop):
        fn = self.name("inner")
        v = lv or "n"
        return self.r.choice([
            [f"{ind}def {fn}(v):", f"{ind}    if v > {self.c()}:", f"{ind}        return v",
             f"{ind}    return -v", f"{ind}total += {fn}({v})"],
            [f"{ind}out = sorted(out, key=lambda v: -v)"],
            [f"{ind}total += helper({v})"],
            [f"{ind}total += depth({v})"],
        ])


YIELDERS = '''

def evens(items):
    """A generator function, often left unfinished by its caller."""
    for v in items:
        if v % 2 == 0:
            yield v
    try:
        yield -1
    finally:
        items = []
'''

HELPERS = '''

def helper(v):
    if v % 3 == 0:
        return v // 3
    return 1


def depth(v):
    if v <= 0:
        return 0
    return 1 + depth(v - 2)


def never_called(v):
    while v > 0:
        v -= 2
    return v
'''


def generate(seed: int, index: int) -> Generated:
    rnd = random.Random(seed * 100_003 + index)
    g = _Gen(rnd)
    body = g.block("    ", 0, size=rnd.randint(2, 5))
    lines = []
    if g.uses_localcontext:
        lines += ["from decimal import localcontext", "", ""]
    lines += ["def step(n, items, word):", "    total = 0", "    out = []"] + body
    lines += ["    return [total, out[:4]]"]
    source = "\n".join(lines) + "\n" + HELPERS + (YIELDERS if g.yielders else "")
    cases = []
    for _ in range(3):
        cases.append({"n": rnd.randint(-2, 8),
                      "items": [rnd.randint(0, 9) for _ in range(rnd.randint(0, 5))],
                      "word": rnd.choice(WORDS)})
    return Generated(f"gen{index:03d}", source, cases)
