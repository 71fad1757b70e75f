"""The harness loads itself and the validator with the cycle collector off (its collections
were a measurable share of every sandbox's start-up: bench/sandbox.py --floor) and turns it
back on before any step code runs: a step's cyclic garbage is collected as in plain Python,
so it does not run out of memory where Python would not."""

from stepsmith.runner.sandbox import Limits, run_step, run_unvalidated

#: ~8 KB of cyclic garbage per iteration, ~800 MB in all: far past the sandbox's 256 MiB
#: address space unless the collector reclaims the cycles as the loop goes
CYCLES = (
    "def f(n):\n"
    "    made = 0\n"
    "    for i in range(n):\n"
    "        box = [0] * 1000\n"
    "        box.append(box)\n"
    "        made += 1\n"
    "    return made\n"
)


def test_a_steps_cyclic_garbage_is_collected():
    res = run_step(CYCLES, "f", {"n": 100_000}, limits=Limits(cpu_seconds=5, wall_seconds=20))
    assert res.status == "ok", (res.status, res.message)
    assert res.output == 100_000


def test_the_collector_is_on_when_step_code_starts():
    src = "import gc\ndef f():\n    return [gc.isenabled(), gc.get_threshold()[0] > 0]\n"
    res = run_unvalidated(src, "f", {})
    assert res.status == "ok", (res.status, res.message)
    assert res.output == [True, True]
