"""The egress proxy's request handling apart from its address classification (issue 18 item 5,
found by the mutation table: changing the verb check, the port set or the directory's mode
passed every test). Spoken to directly on its unix socket, as the sandbox's urllib facade
does: one verb, a bounded request head, HTTP(S) ports only, a private directory."""

from __future__ import annotations

import os
import socket
import stat

import pytest
from stepsmith.runner.sandbox import egress

PUBLIC = "93.184.216.34"  # a public address: only the port decides (no connection is made)


@pytest.fixture
def proxy():
    p = egress.EgressProxy()
    yield p
    p.close()


def ask(proxy, data: bytes) -> bytes:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    try:
        s.connect(proxy.path)
        s.sendall(data)
        buf = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            buf += chunk
        return buf
    finally:
        s.close()


@pytest.mark.parametrize("verb", [b"GET", b"POST", b"connect", b"CONNECTX"])
def test_only_connect_is_served(proxy, verb):
    reply = ask(proxy, verb + f" {PUBLIC}:443 HTTP/1.1\r\n\r\n".encode())
    assert reply.startswith(b"HTTP/1.1 400 "), reply
    assert b"only CONNECT host:port is served" in reply


@pytest.mark.parametrize("target", [PUBLIC, ":443", f"{PUBLIC}:https", f"{PUBLIC}:"])
def test_connect_needs_a_host_and_a_numeric_port(proxy, target):
    reply = ask(proxy, f"CONNECT {target} HTTP/1.1\r\n\r\n".encode())
    assert reply.startswith(b"HTTP/1.1 400 ") and b"CONNECT needs host:port" in reply, reply


def test_a_request_head_over_8_kib_is_refused(proxy):
    head = f"CONNECT {PUBLIC}:443 HTTP/1.1\r\nX-Pad: ".encode() + b"a" * 9000 + b"\r\n\r\n"
    reply = ask(proxy, head)
    assert reply.startswith(b"HTTP/1.1 400 ") and b"larger than 8 KiB" in reply, reply[:200]


@pytest.mark.parametrize("port", [22, 25, 8080, 6443])
def test_ports_other_than_80_and_443_are_refused_for_a_public_address(proxy, port):
    reply = ask(proxy, f"CONNECT {PUBLIC}:{port} HTTP/1.1\r\n\r\n".encode())
    assert reply.startswith(b"HTTP/1.1 403 "), reply
    assert f"port {port} refused".encode() in reply
    assert egress.PORTS == frozenset({80, 443})


def test_the_proxy_socket_lives_in_a_private_directory(proxy):
    st = os.stat(proxy.directory)
    assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid()
    assert os.path.dirname(proxy.path) == proxy.directory
    assert stat.S_ISSOCK(os.lstat(proxy.path).st_mode)
    proxy.close()
    assert not os.path.exists(proxy.directory)  # nothing of it outlives the run
