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
- keeps only the addresses its `AddressPolicy` calls public: our own table from the IANA
  registries (addresses.py: no loopback, private, link-local/metadata, CGNAT, multicast,
  reserved, documentation, nor an IPv6 form embedding one of those) and none assigned to
  this machine's own interfaces, read fresh for every request (interfaces.py);
- answers "cannot resolve" and "resolves only to non-public addresses" with the same status
  and text (and only then looks at the port), so a step cannot probe which internal names
  exist.
The proxy serves at most `MAX_CONNECTIONS` clients at once (more are answered 503 and
closed), and `close()` stops every serving thread: none connects after it returns.
Tests prove the allowed path on a loopback-only machine by handing the proxy a policy of
their own (`EgressProxy(policy=...)`, `run_step(..., egress_policy=...)`); nothing in the
product's decision knows about tests.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Sequence

from . import addresses, interfaces
from .cmdline import SANDBOX_DIR

SANDBOX_PATH = SANDBOX_DIR + "/egress.sock"
PORTS = frozenset({80, 443})
MAX_CONNECTIONS = 32
_HEAD_CAP = 8192
_CONNECT_TIMEOUT = 10.0
_JOIN_SECONDS = 3.0


class AddressPolicy:
    """What a live step may reach. The proxy asks `port_allowed` before resolving and
    `public` with every address the name resolved to."""

    def port_allowed(self, port: int) -> bool:
        return port in PORTS

    def public(self, candidates: Sequence[str]) -> list[str]:
        """The candidates a live step may connect to, in order: public by the table, and not
        an address of this machine (nor an IPv6 form embedding one). Fails closed: if the
        interfaces cannot be read, nothing is public."""
        try:
            local = interfaces.local_addresses()
        except OSError:
            return []
        out = []
        for text in candidates:
            ip = addresses.parse(text)
            if ip is None or not addresses.is_public_ip(ip) or ip in local:
                continue
            inner = addresses.embedded_ipv4(ip) if ip.version == 6 else None
            if inner is not None and inner in local:
                continue
            out.append(text)
        return out


def is_public(address: str, port: int, policy: AddressPolicy | None = None) -> bool:
    """May a live step reach `address`:`port`? (an HTTP(S) port, a public address, not ours)"""
    policy = policy or AddressPolicy()
    return policy.port_allowed(port) and bool(policy.public([address]))


def _unreachable(host: str) -> str:
    # one text for "does not resolve" and "resolves to non-public addresses only"
    return (f"{host!r} does not resolve to a reachable public address (non-public or unknown "
            "name): a live step reaches the public internet only")


class EgressProxy:
    """One proxy per live step invocation (`close()` it after the sandbox is gone)."""

    def __init__(self, owner_uid: int | None = None, owner_gid: int | None = None, *,
                 policy: AddressPolicy | None = None):
        self.policy = policy if policy is not None else AddressPolicy()
        self.directory = tempfile.mkdtemp(prefix="stepsmith-egress-")
        if owner_uid is not None:  # a root runner: the sandbox's host user must reach it
            os.chown(self.directory, owner_uid, owner_gid if owner_gid is not None else -1)
        os.chmod(self.directory, 0o700)
        self.path = os.path.join(self.directory, "egress.sock")
        self._srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._srv.bind(self.path)
        os.chmod(self.path, 0o666)  # the 0700 directory is the access check
        self._srv.listen(16)
        self._closed = False
        self._lock = threading.Lock()
        self._conns: set[socket.socket] = set()  # clients and upstreams still open
        self._threads: set[threading.Thread] = set()
        self._thread = threading.Thread(target=self._accept, name="stepsmith-egress",
                                        daemon=True)
        self._thread.start()

    def serving(self) -> int:
        """Serving threads still alive (0 after close())."""
        with self._lock:
            return sum(t.is_alive() for t in self._threads)

    def close(self) -> None:
        """Stop accepting, close every socket, and join the serving threads. A thread still
        inside name resolution (which cannot be interrupted) finds the proxy closed when it
        returns and never connects: `_register` refuses new sockets once closed."""
        with self._lock:
            self._closed = True
            conns, threads = list(self._conns), list(self._threads)
            self._conns.clear()
        try:
            self._srv.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._srv.close()
        for c in conns:
            _close(c)
        # one deadline for all: shutdown() aborted any connect in flight (SYN_SENT included),
        # so only a thread still inside getaddrinfo can outlive it, and it never connects
        deadline = time.monotonic() + _JOIN_SECONDS
        for t in (self._thread, *threads):
            t.join(max(0.0, deadline - time.monotonic()))
        shutil.rmtree(self.directory, ignore_errors=True)

    # ----------------------------------------------------------------------- serving

    def _register(self, s: socket.socket) -> bool:
        with self._lock:
            if self._closed:
                return False
            self._conns.add(s)
            return True

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._srv.accept()
            except OSError:
                return
            with self._lock:
                self._threads = {t for t in self._threads if t.is_alive()}
                busy = len(self._threads) >= MAX_CONNECTIONS
            if busy:
                try:
                    client.settimeout(1.0)
                    _reply(client, 503, f"more than {MAX_CONNECTIONS} connections at once")
                except OSError:
                    pass
                _close(client)
                continue
            t = threading.Thread(target=self._serve, args=(client,), daemon=True,
                                 name="stepsmith-egress-conn")
            with self._lock:  # registered and started at once: close() joins all it sees
                if not self._closed:
                    self._conns.add(client)
                    self._threads.add(t)
                    t.start()
                    continue
            _close(client)
            return

    def _serve(self, client: socket.socket) -> None:
        upstream = None
        try:
            client.settimeout(_CONNECT_TIMEOUT)
            target = _parse_connect(self._read_head(client))
            if isinstance(target, str):
                return _reply(client, 400, target)
            host, port = target
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError, ValueError, OverflowError):
                infos = []
            allowed = set(self.policy.public([info[4][0] for info in infos]))
            addrs = [info for info in infos if info[4][0] in allowed]
            if not addrs:  # the same answer whether the name is unknown or internal
                return _reply(client, 403, _unreachable(host))
            if not self.policy.port_allowed(port):  # said only of a public address
                return _reply(client, 403, f"port {port} refused: a live step reaches ports "
                              "80 and 443 only")
            family, stype, proto, _, sockaddr = addrs[0]
            upstream = socket.socket(family, stype, proto)
            if not self._register(upstream):
                return None  # closed meanwhile: never connect
            upstream.settimeout(_CONNECT_TIMEOUT)
            try:
                upstream.connect(sockaddr)  # exactly the address that was checked
            except OSError as exc:
                return _reply(client, 502, f"cannot connect to {host}:{port}: "
                              f"{exc.strerror or exc}")
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self._splice(client, upstream)
        except (OSError, ValueError):  # ValueError: a socket close() shut under us
            pass
        finally:
            with self._lock:
                self._conns.discard(client)
                if upstream is not None:
                    self._conns.discard(upstream)
            for s in (client, upstream):
                if s is not None:
                    _close(s)

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
        while not self._closed:
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


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass


def _parse_connect(head: bytes) -> tuple[str, int] | str:
    if b"\r\n\r\n" not in head:
        return "request head missing or larger than 8 KiB"
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split()
    if len(parts) != 3 or parts[0] != "CONNECT" or not parts[2].startswith("HTTP/1."):
        return "only CONNECT host:port is served"
    host, sep, port = parts[1].rpartition(":")
    if not sep or not port.isdigit() or not host or len(port) > 5:
        return "CONNECT needs host:port"
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def _reply(client: socket.socket, code: int, reason: str) -> None:
    reason = reason.replace("\r", " ").replace("\n", " ")[:300]
    phrase = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway",
              503: "Service Unavailable"}[code]
    body = f"stepsmith egress: {reason}\n".encode("utf-8", "replace")
    client.sendall(f"HTTP/1.1 {code} {phrase}: {reason}\r\nContent-Length: {len(body)}\r\n"
                   "Connection: close\r\n\r\n".encode("utf-8", "replace") + body)
