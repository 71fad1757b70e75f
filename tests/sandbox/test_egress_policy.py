"""The egress proxy's idea of "public", checked against the IANA registries
(tests/sandbox/iana_registries.py, a reference written apart from the product's table) on
generated addresses, the IPv4-embedding IPv6 forms by name, the uniform refusal (no DNS
existence oracle), close() and the bounded connection list. No network traffic leaves the
loopback: the proxy is driven over its own unix socket."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from iana_registries import boundaries, reference_public
from sandbox_kit import ask_proxy
from stepsmith.runner.sandbox import addresses, egress

V4 = st.one_of(st.integers(0, 2**32 - 1), st.sampled_from(boundaries(4)))
V6_RANDOM = st.one_of(st.integers(0, 2**128 - 1), st.sampled_from(boundaries(6)))


def _v6(n: int) -> str:
    return str(ipaddress.IPv6Address(n))


@st.composite
def embedded(draw):
    """An IPv6 address built around an IPv4 one in each known embedding (and random bits
    where the form has free bits)."""
    v4 = draw(V4)
    free = draw(st.integers(0, 2**80 - 1))
    forms = [
        (0xFFFF << 32) | v4,                                   # ::ffff:a.b.c.d (mapped)
        (0x0064FF9B << 96) | v4,                               # 64:ff9b::a.b.c.d (NAT64)
        (0x0064FF9B0001 << 80) | (free & (2**80 - 1)),         # 64:ff9b:1::/48 (local NAT64)
        v4,                                                    # ::a.b.c.d (IPv4-compatible)
        (0xFFFF << 48) | v4,                                   # ::ffff:0:a.b.c.d (SIIT)
        (0x2002 << 112) | (v4 << 80) | (free & (2**80 - 1)),   # 6to4
        (0x20010000 << 96) | (v4 << 64) | (free & (2**64 - 1)),  # Teredo
    ]
    return _v6(draw(st.sampled_from(forms)))


@settings(max_examples=3000, deadline=None)
@given(V4)
def test_ipv4_classification_agrees_with_the_iana_registry(n):
    addr = str(ipaddress.IPv4Address(n))
    assert addresses.is_public(addr) == reference_public(addr), addr


@settings(max_examples=3000, deadline=None)
@given(st.one_of(V6_RANDOM.map(_v6), embedded()))
@example("64:ff9b::a9fe:a9fe")
@example("2002:a9fe:a9fe::1")
def test_ipv6_classification_agrees_with_the_iana_registry(addr):
    assert addresses.is_public(addr) == reference_public(addr), addr


@pytest.mark.parametrize("addr", [
    "64:ff9b::a9fe:a9fe",          # NAT64 of the metadata service (DNS64 clouds)
    "64:ff9b::7f00:1",             # NAT64 of loopback
    "64:ff9b::a00:1",              # NAT64 of 10.0.0.1
    "64:ff9b:1::a9fe:a9fe",        # local-use NAT64: refused whole
    "64:ff9b:1:ffff::808:808",
    "::169.254.169.254",           # IPv4-compatible
    "::8.8.8.8",                   # IPv4-compatible, even of a public address (deprecated)
    "::ffff:169.254.169.254",      # IPv4-mapped
    "::ffff:0:169.254.169.254",    # SIIT
    "::ffff:0:8.8.8.8",
    "2002:a9fe:a9fe::1",           # 6to4 of the metadata service
    "2002:7f00:1::1",              # 6to4 of loopback
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "2001::1",
    "4000::1",                     # outside 2000::/3 (IANA: reserved)
    "ff0e::1", "224.0.0.1", "239.255.255.250",
    "fe80::1%lo", "fe80::1", "fc00::1", "fd12::1", "::1", "::",
    "100.64.0.1", "192.0.0.8", "198.18.0.1", "240.0.0.1", "255.255.255.255",
    "not an address", "", "1.2.3", "::ffff:999.1.1.1",
])
def test_non_public_forms_are_refused(addr):
    assert not addresses.is_public(addr)


@pytest.mark.parametrize("addr", ["8.8.8.8", "93.184.216.34", "64:ff9b::808:808",
                                  "::ffff:8.8.8.8", "2002:808:808::1", "2606:2800::1",
                                  "192.0.0.9", "2001:4:112::1"])
def test_public_forms_are_allowed(addr):
    assert addresses.is_public(addr)


def test_embedded_ipv4_is_extracted_from_every_form():
    v4 = ipaddress.IPv4Address("169.254.169.254")
    for form in ("::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::",
                 "::ffff:0:a9fe:a9fe", "::a9fe:a9fe"):
        assert addresses.embedded_ipv4(ipaddress.IPv6Address(form)) == v4, form
    assert addresses.embedded_ipv4(ipaddress.IPv6Address("2606:2800::1")) is None


def test_no_test_switch_in_the_product_module():
    assert not hasattr(egress, "TEST_PUBLIC")


# ------------------------------------------------------------------ the proxy, over its socket


def shown(answer: bytes, host: str):
    """Status line and body of an answer, the host's name taken out."""
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].replace(host.encode(), b"H"), body.replace(host.encode(), b"H")


def test_unresolvable_and_non_public_names_get_the_same_answer():
    proxy = egress.EgressProxy()
    try:
        non_public = ask_proxy(proxy.path, "localhost:443")
        loopback = ask_proxy(proxy.path, "127.0.0.1:443")
        missing = ask_proxy(proxy.path, "no-such-host.invalid:443")
    finally:
        proxy.close()
    assert non_public.startswith(b"HTTP/1.1 403"), non_public
    assert shown(non_public, "localhost") == shown(missing, "no-such-host.invalid"), \
        (non_public, missing)
    assert shown(loopback, "127.0.0.1") == shown(missing, "no-such-host.invalid")


def test_a_refused_port_tells_nothing_about_internal_names():
    proxy = egress.EgressProxy()
    try:
        missing = ask_proxy(proxy.path, "no-such-host.invalid:25")
        internal = ask_proxy(proxy.path, "localhost:25")
        public = ask_proxy(proxy.path, "8.8.8.8:25")  # a literal: no lookup, no traffic
    finally:
        proxy.close()
    assert missing.startswith(b"HTTP/1.1 403"), missing
    assert shown(missing, "no-such-host.invalid") == shown(internal, "localhost")
    assert b"ports 80 and 443" in public and b"ports 80 and 443" not in missing, public


class _GatedLoopback(egress.AddressPolicy):
    """Test policy: one loopback port counts as public, and the check waits on a gate."""

    def __init__(self, port: int, gate: threading.Event | None = None):
        super().__init__()
        self.port, self.gate, self.asked = port, gate, threading.Event()

    def port_allowed(self, port: int) -> bool:
        return port == self.port

    def public(self, candidates):
        self.asked.set()
        if self.gate is not None:
            self.gate.wait(10)
        return [a for a in candidates if a == "127.0.0.1"]


@pytest.fixture
def listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    srv.settimeout(0.2)
    yield srv
    srv.close()


def _accepts(srv, seconds: float) -> int:
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            c, _ = srv.accept()
        except TimeoutError:
            continue
        n += 1
        c.close()
    return n


def test_no_connect_after_close(listener):
    port = listener.getsockname()[1]
    gate = threading.Event()
    policy = _GatedLoopback(port, gate)
    proxy = egress.EgressProxy(policy=policy)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(proxy.path)
    client.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % port)
    assert policy.asked.wait(10)
    proxy.close()  # the serving thread is between its check and its connect
    gate.set()
    assert _accepts(listener, 1.5) == 0
    client.close()


def test_close_ends_every_serving_thread(listener):
    port = listener.getsockname()[1]
    proxy = egress.EgressProxy(policy=_GatedLoopback(port))
    clients = []
    for _ in range(3):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(10)
        c.connect(proxy.path)
        c.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % port)
        assert c.recv(100).startswith(b"HTTP/1.1 200"), "tunnel open"
        clients.append(c)
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.connect(proxy.path)  # sends nothing: its thread waits for a request head
    time.sleep(0.2)
    assert proxy.serving() == 4
    proxy.close()
    assert proxy.serving() == 0
    for c in clients + [idle]:
        c.close()


def test_connection_list_is_bounded():
    proxy = egress.EgressProxy()
    held = []
    try:
        for _ in range(egress.MAX_CONNECTIONS + 20):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(proxy.path)  # blocking: waits while the backlog is full
            s.settimeout(5)
            held.append(s)
        time.sleep(0.5)
        assert proxy.serving() <= egress.MAX_CONNECTIONS
        # the ones over the bound were answered and closed at once
        s = held[-1]
        assert s.recv(200).startswith(b"HTTP/1.1 503"), "over the bound"
    finally:
        for s in held:
            s.close()
        proxy.close()
    assert proxy.serving() == 0


def test_interfaces_that_cannot_be_read_make_nothing_public(monkeypatch):
    """Fails closed: without this machine's own addresses, no address can be shown not to be
    one of them."""
    def unreadable():
        raise OSError("netlink refused")

    assert egress.AddressPolicy().public(["93.184.216.34", "2606:2800:220:1::1"]) != []
    monkeypatch.setattr(egress.interfaces, "local_addresses", unreadable)
    assert egress.AddressPolicy().public(["93.184.216.34", "2606:2800:220:1::1"]) == []
    assert egress.is_public("93.184.216.34", 443) is False
