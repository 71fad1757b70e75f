"""An address assigned to one of this machine's interfaces is refused by the
egress proxy, read fresh for every request. Run in a network namespace this test creates
(`unshare --net`, root) holding a dummy (or veth) interface with public addresses, a listener on them,
and the real proxy with the real policy: no traffic reaches a non-loopback address outside
that namespace (it has no route out)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

V4, V6 = "1.2.3.4", "2606:4700:10::1234"
KIT = str(Path(__file__).resolve().parents[1] / "kits")  # sandbox_kit.py: the probe asks the proxy with it

SCRIPT = textwrap.dedent(r"""
    import json, socket, subprocess, sys, threading
    from stepsmith.runner.sandbox import egress, interfaces

    V4, V6, KIT = sys.argv[1:4]
    sys.path.insert(0, KIT)
    from sandbox_kit import ask_proxy
    out = {}
    policy = egress.AddressPolicy()
    out["before"] = policy.public([V4, V6, "::ffff:" + V4, "64:ff9b::" + V4])

    proxy = egress.EgressProxy()   # started BEFORE the addresses exist: read per request

    def ip(*args):
        subprocess.run(["ip", *args], check=True)

    # a dummy interface where the kernel has the module, else a veth pair (both ends here)
    if subprocess.run(["ip", "link", "add", "ext0", "type", "dummy"]).returncode != 0:
        ip("link", "add", "ext0", "type", "veth", "peer", "name", "ext1")
        ip("link", "set", "ext1", "up")
    ip("addr", "add", V4 + "/32", "dev", "ext0")
    ip("-6", "addr", "add", V6 + "/128", "dev", "ext0", "nodad")
    ip("link", "set", "ext0", "up")
    ip("link", "set", "lo", "up")  # local delivery goes through lo
    out["local"] = sorted(str(a) for a in interfaces.local_addresses())

    hits = []
    servers = []
    for family, addr in ((socket.AF_INET, V4), (socket.AF_INET6, V6)):
        srv = socket.socket(family)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((addr, 80))
        srv.listen(8)
        servers.append(srv)

        def serve(srv=srv):
            while True:
                try:
                    c, _ = srv.accept()
                except OSError:
                    return
                hits.append(c.getsockname()[0])
                c.close()

        threading.Thread(target=serve, daemon=True).start()

    # the listener is reachable here by a plain connect: the refusal is the proxy's
    probe = socket.create_connection((V4, 80), timeout=2)
    probe.close()

    def ask(target):
        return ask_proxy(proxy.path, target).split(b"\r\n")[0].decode()

    out["answers"] = {t: ask(t) for t in (V4 + ":80", "[" + V6 + "]:80",
                                          "[::ffff:" + V4 + "]:80", "[64:ff9b::" + V4 + "]:80")}
    out["after"] = policy.public([V4, V6, "::ffff:" + V4, "64:ff9b::" + V4])
    hits_before_close = len(hits)
    proxy.close()
    out["hits"] = hits_before_close
    print(json.dumps(out))
""")


@pytest.mark.skipif(os.geteuid() != 0 and os.environ.get("STEPSMITH_STRICT") != "1",
                    reason="creating a network namespace with a dummy interface needs root")
def test_addresses_of_local_interfaces_are_refused_per_request(tmp_path):
    unshare, ipcmd = shutil.which("unshare"), shutil.which("ip")
    assert unshare and ipcmd, "util-linux unshare and iproute2 ip are part of the base system"
    script = tmp_path / "probe.py"
    script.write_text(SCRIPT)
    done = subprocess.run([unshare, "--net", "--", sys.executable, str(script), V4, V6, KIT],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # before they were assigned, these are public addresses like any other
    assert out["before"] == [V4, V6, "::ffff:" + V4, "64:ff9b::" + V4], out
    assert V4 in out["local"] and V6 in out["local"], out["local"]
    # once assigned: refused, in every spelling, by the same proxy that started earlier
    assert out["after"] == [], out
    for target, status in out["answers"].items():
        assert status.startswith("HTTP/1.1 403"), (target, status)
    assert out["hits"] == 1, out  # only the test's own direct probe reached the listener
