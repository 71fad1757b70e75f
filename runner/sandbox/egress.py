"""The egress proxy of a live run: the only way out of a `public_egress` sandbox.

Design (issue 10, finding 6; measured against a user-mode stack in DESIGN.md): the sandbox
never shares the host's network namespace. It has its own, empty one (no interface but its
own loopback, so the host's loopback services, interfaces, /proc/net and abstract unix
sockets are simply not there), and seccomp lets a live step create AF_UNIX sockets only. The
one way out is this proxy, run by the runner for the length of one step invocation, listening
on a unix socket in a private directory that is bound into the sandbox at `SANDBOX_PATH`.

It speaks one verb, `CONNECT host:port` (the step's urllib facade tunnels http:// and
https:// through it; TLS stays end to end in the step), and for each request
- allows ports 80 and 443 only (HTTP(S) and nothing else);
- resolves the name itself, once, and connects to exactly the address it checked (no DNS
  rebinding between check and use);
- refuses every address that is not globally routable: loopback, link-local (169.254/16 and
  the cloud metadata address, fe80::/10), private (10/8, 172.16/12, 192.168/16, fc00::/7),
  CGNAT, multicast, reserved, unspecified, and IPv4-mapped forms of them.
`TEST_PUBLIC` is a test-only switch: (address, port) pairs treated as public, so the allowed
path is proven end to end on a loopback-only machine. Nothing outside tests sets it.
"""

from __future__ import annotations

import ipaddress
import os
import select
import shutil
import socket
import tempfile
import threading

SANDBOX_DIR = "/run/stepsmith"
SANDBOX_PATH = SANDBOX_DIR + "/egress.sock"
PORTS = frozenset({80, 443})
#: TEST ONLY: {(address, port)} the proxy treats as public (see module docstring).
TEST_PUBLIC: set[tuple[str, int]] = set()
_HEAD_CAP = 8192
_CONNECT_TIMEOUT = 10.0


def is_public(address: str, port: int) -> bool:
    """May a live step reach `address`:`port`? (globally routable, and an HTTP(S) port)"""
    if (address, port) in TEST_PUBLIC:
        return True
    return _global(address) and port in PORTS


def _global(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is not None:
            ip = inner
    return ip.is_global and not ip.is_multicast


class EgressProxy:
    """One proxy per live step invocation (`close()` it after the sandbox is gone)."""

    def __init__(self, owner_uid: int | None = None, owner_gid: int | None = None):
        self.directory = tempfile.mkdtemp(prefix="stepsmith-egress-")
        if owner_uid is not None:  # a root runner: the sandbox's host user must reach it
            os.chown(self.directory, owner_uid, owner_gid if owner_gid is not None else -1)
        os.chmod(self.directory, 0o700)
        self.path = os.path.join(self.directory, "egress.sock")
        self._srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._srv.bind(self.path)
        os.chmod(self.path, 0o666)  # the 0700 directory is the access check
        self._srv.listen(16)
        self._closed = threading.Event()
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name="stepsmith-egress",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closed.set()
        try:
            self._srv.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._srv.close()
        with self._lock:
            for c in self._conns:
                try:
                    c.close()
                except OSError:
                    pass
        self._thread.join(2)
        shutil.rmtree(self.directory, ignore_errors=True)

    # ----------------------------------------------------------------------- serving

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._srv.accept()
            except OSError:
                return
            with self._lock:
                self._conns.append(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = None
        try:
            client.settimeout(_CONNECT_TIMEOUT)
            head = self._read_head(client)
            target = _parse_connect(head)
            if isinstance(target, str):
                return _reply(client, 400, target)
            host, port = target
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError) as exc:
                return _reply(client, 502, f"cannot resolve {host!r}: {exc.strerror or exc}")
            addrs = [info for info in infos if is_public(info[4][0], port)]
            if not addrs:
                if not any(_global(i[4][0]) for i in infos):
                    return _reply(client, 403, f"{host!r} resolves to a non-public address: "
                                  "a live step reaches the public internet only")
                return _reply(client, 403, f"port {port} refused: a live step reaches "
                              "ports 80 and 443 only")
            family, stype, proto, _, sockaddr = addrs[0]
            upstream = socket.socket(family, stype, proto)
            with self._lock:
                self._conns.append(upstream)
            upstream.settimeout(_CONNECT_TIMEOUT)
            try:
                upstream.connect(sockaddr)  # exactly the address that was checked
            except OSError as exc:
                return _reply(client, 502, f"cannot connect to {host}:{port}: "
                              f"{exc.strerror or exc}")
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self._splice(client, upstream)
        except OSError:
            pass
        finally:
            for s in (client, upstream):
                if s is not None:
                    try:
                        s.close()
                    except OSError:
                        pass

    def _read_head(self, client: socket.socket) -> bytes:
        buf = b""
        while b"\r\n\r\n" not in buf and len(buf) <= _HEAD_CAP:
            chunk = client.recv(_HEAD_CAP + 1 - len(buf))
            if not chunk:
                break
            buf += chunk
        return buf

    def _splice(self, a: socket.socket, b: socket.socket) -> None:
        for s in (a, b):
            s.setblocking(False)
        peers = {a: b, b: a}
        while not self._closed.is_set():
            ready, _, _ = select.select([a, b], [], [], 0.5)
            for s in ready:
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    return
                peers[s].setblocking(True)
                peers[s].sendall(data)
                peers[s].setblocking(False)


def _parse_connect(head: bytes) -> tuple[str, int] | str:
    if b"\r\n\r\n" not in head:
        return "request head missing or larger than 8 KiB"
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split()
    if len(parts) != 3 or parts[0] != "CONNECT" or not parts[2].startswith("HTTP/1."):
        return "only CONNECT host:port is served"
    host, sep, port = parts[1].rpartition(":")
    if not sep or not port.isdigit() or not host:
        return "CONNECT needs host:port"
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def _reply(client: socket.socket, code: int, reason: str) -> None:
    reason = reason.replace("\r", " ").replace("\n", " ")[:300]
    phrase = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[code]
    body = f"stepsmith egress: {reason}\n".encode("utf-8", "replace")
    client.sendall(f"HTTP/1.1 {code} {phrase}: {reason}\r\nContent-Length: {len(body)}\r\n"
                   "Connection: close\r\n\r\n".encode("utf-8", "replace") + body)
