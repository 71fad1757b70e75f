"""Live runs (issue 10, finding 6) and the urllib facade's schemes (finding 7), against
canaries on this machine's loopback: an HTTP server and a banner-speaking TCP service on
127.0.0.1 and an abstract unix socket. A live step reaches the public internet over HTTP(S)
through the runner's egress proxy and nothing else; a test address policy (`LoopbackPort`,
handed to run_step, never a switch in the product) marks one loopback port public to prove the
allowed path end to end."""

import http.server
import socket
import socketserver
import threading
import uuid

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import Limits, egress, run_step
from stepsmith.runner.validator import StepUse

EGRESS = [StepUse("fetch", "fetch", "public_egress")]
FETCH = ("import urllib.request\n\n\ndef fetch(url):\n"
         "    with urllib.request.urlopen(url, timeout=3) as r:\n"
         "        return r.read().decode()\n")
BODY = "host-loopback-canary-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def http_canary():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(BODY.encode())

        def log_message(self, *args):
            pass

    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def banner_canary():
    """A non-HTTP service: says its banner to whoever connects."""
    banner = b"SSH-2.0-canary-" + uuid.uuid4().hex.encode() + b"\r\n"
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                return
            try:
                c.sendall(banner)
            finally:
                c.close()

    threading.Thread(target=serve, daemon=True).start()
    yield srv.getsockname()[1], banner.decode().strip()
    stop.set()
    srv.close()


@pytest.fixture(scope="module")
def abstract_canary():
    name = "stepsmith-canary-" + uuid.uuid4().hex
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind("\0" + name)
    srv.listen(1)
    yield name
    srv.close()


class LoopbackPort(egress.AddressPolicy):
    """TEST policy: 127.0.0.1:<port> counts as public, everything else as the product says."""

    def __init__(self, port: int):
        self.port = port

    def port_allowed(self, port: int) -> bool:
        return port == self.port or super().port_allowed(port)

    def public(self, candidates):
        return [a for a in candidates if a == "127.0.0.1"] or super().public(candidates)


def live(url, policy=None):
    return run_step(FETCH, "fetch", {"url": url}, uses=EGRESS, live_network=True,
                    egress_policy=policy)


def test_live_step_cannot_read_the_host_loopback_canary(http_canary):
    res = live(f"http://127.0.0.1:{http_canary}/")
    assert res.status == "error", res
    assert BODY not in repr(res.to_json())
    assert "non-public" in res.message, res.message


def test_name_resolving_to_loopback_is_refused(http_canary):
    res = live(f"http://localhost:{http_canary}/")
    assert res.status == "error" and BODY not in repr(res.to_json()), res
    assert "non-public" in res.message, res.message


def test_non_http_loopback_service_banner_never_reaches_the_step(banner_canary):
    port, banner = banner_canary
    res = live(f"http://127.0.0.1:{port}/")
    assert res.status == "error", res
    assert banner not in repr(res.to_json())


def test_allowed_path_end_to_end_through_the_proxy(http_canary):
    res = live(f"http://127.0.0.1:{http_canary}/", LoopbackPort(http_canary))
    assert res.status == "ok" and res.output == BODY, res


def test_proxy_refuses_private_link_local_and_metadata_addresses():
    for addr in ("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
                 "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1",
                 "::ffff:169.254.169.254", "224.0.0.1"):
        assert not egress.is_public(addr, 443), addr
    assert egress.is_public("93.184.216.34", 443) and egress.is_public("2606:2800::1", 80)
    assert not egress.is_public("93.184.216.34", 25)  # HTTP(S) ports only


def test_offline_egress_step_has_no_network(http_canary):
    res = run_step(FETCH, "fetch", {"url": f"http://127.0.0.1:{http_canary}/"}, uses=EGRESS)
    assert res.status == "error" and "not a live run" in res.message, res


@pytest.mark.parametrize("url", ["file:///proc/stat", "file:///proc/uptime",
                                 "ftp://127.0.0.1/x", "data:text/plain,hi"])
def test_urlopen_schemes_other_than_http_refused(url):
    for go_live in (False, True):
        res = run_step(FETCH, "fetch", {"url": url}, uses=EGRESS, live_network=go_live)
        assert res.status == "error", (url, res)
        assert "http:// and https:// only" in res.message, (url, res.message)


def test_facade_opener_refuses_file_handlers():
    names = ['FileHandler', 'FTPHandler', 'DataHandler', 'ProxyHandler', 'URLopener', 'urlretrieve', 'getproxies', 'install_opener', 'OpenerDirector']
    src = ("import urllib.request\n\n\ndef fetch(url):\n    return [\n"
           + "".join(f"        hasattr(urllib.request, {n!r}),\n" for n in names) + "    ]\n")
    res = run_step(src, "fetch", {"url": ""}, uses=EGRESS)
    assert res.status == "ok" and res.output == [False] * len(names), res


FULL_PYTHON = '''
import os, socket
def f(port, abstract):
    out = {}
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        out["inet"] = "created"
    except OSError as e:
        out["inet"] = e.errno
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect("\\0" + abstract)
        out["abstract"] = "connected"
    except OSError as e:
        out["abstract"] = e.errno
    out["net_tcp"] = open("/proc/net/tcp").read()
    out["net_unix"] = open("/proc/net/unix").read()
    out["net_dev"] = [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/stepsmith/egress.sock")
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n\\r\\n" % port)
    out["proxy"] = s.recv(4096).decode()
    return out
'''


def test_full_python_in_a_live_sandbox_sees_no_host_network(http_canary, abstract_canary):
    res = sandbox._execute(FULL_PYTHON, "f", {"port": http_canary, "abstract": abstract_canary},
                           filename="s.py", validate=False, live_network=True, limits=Limits())
    assert res.status == "ok", res
    out = res.output
    assert out["inet"] != "created" and out["abstract"] != "connected", out
    assert (":%04X" % http_canary) not in out["net_tcp"], out["net_tcp"]
    assert abstract_canary not in out["net_unix"]
    assert out["net_dev"] == ["lo"], out["net_dev"]
    assert out["proxy"].startswith("HTTP/1.1 403"), out["proxy"]
    assert BODY not in repr(out)


def test_https_is_tls_end_to_end_in_the_step(tmp_path):
    """A TLS server on loopback (marked public) with a self-signed certificate: the step's own
    TLS client, through the CONNECT tunnel, refuses the certificate (the proxy never sees
    plaintext and cannot vouch for the server)."""
    import shutil
    import ssl
    import subprocess

    openssl = shutil.which("openssl")
    assert openssl, "openssl is part of the base system"
    key, cert = tmp_path / "k.pem", tmp_path / "c.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=localhost"], check=True,
                   capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]
    seen = []

    def serve():
        try:
            c, _ = srv.accept()
            try:
                ctx.wrap_socket(c, server_side=True).close()
            except (ssl.SSLError, OSError) as exc:
                seen.append(type(exc).__name__)
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    try:
        res = live(f"https://127.0.0.1:{port}/", LoopbackPort(port))
    finally:
        srv.close()
    assert res.status == "error", res
    assert "CERTIFICATE_VERIFY_FAILED" in res.message, res.message
