"""The addresses assigned to this machine's own interfaces, read fresh for every egress request.

A public address on one of our interfaces passes every "is it public?" table, yet a connect to
it reaches this host's own services (listening on 80/443 for the LAN, unseen by the outside
firewall). The proxy therefore refuses any address the kernel has assigned locally, read at the
moment of the request (an address added during a run counts): one netlink RTM_GETADDR dump
(every family, every address of every interface: `SIOCGIFADDR` would give one IPv4 address per
interface and miss the secondary ones), ~0.1 ms. Read in the runner's own network namespace,
the one the proxy connects from.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import struct

_RTM_NEWADDR, _RTM_GETADDR = 20, 22
_NLMSG_ERROR, _NLMSG_DONE = 2, 3
_NLM_F_REQUEST, _NLM_F_DUMP = 0x1, 0x300
_IFA_ADDRESS, _IFA_LOCAL, _IFA_BROADCAST = 1, 2, 4
_HDR = struct.Struct("=IHHII")      # nlmsghdr: len, type, flags, seq, pid
_IFADDR = struct.Struct("=BBBBI")   # ifaddrmsg: family, prefixlen, flags, scope, index
_RTA = struct.Struct("=HH")         # rtattr: len, type


def _align(n: int) -> int:
    return (n + 3) & ~3


def local_addresses() -> frozenset[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """Every address (and IPv4 broadcast address) on this machine's interfaces. OSError when
    the kernel cannot be asked: the caller then refuses (fails closed)."""
    found: set = set()
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC,
                       socket.NETLINK_ROUTE) as s:
        s.settimeout(2.0)
        s.bind((0, 0))
        seq = int.from_bytes(os.urandom(4), "little")
        body = _IFADDR.pack(socket.AF_UNSPEC, 0, 0, 0, 0)
        s.sendto(_HDR.pack(_HDR.size + len(body), _RTM_GETADDR,
                           _NLM_F_REQUEST | _NLM_F_DUMP, seq, 0) + body, (0, 0))
        while True:
            data = s.recv(1 << 16)
            if not data:
                raise OSError("netlink: connection closed during the address dump")
            off = 0
            while off + _HDR.size <= len(data):
                length, kind, _, got_seq, _ = _HDR.unpack_from(data, off)
                if length < _HDR.size or off + length > len(data):
                    raise OSError("netlink: malformed message")
                if got_seq == seq:
                    if kind == _NLMSG_DONE:
                        return frozenset(found)
                    if kind == _NLMSG_ERROR:
                        (err,) = struct.unpack_from("=i", data, off + _HDR.size)
                        raise OSError(-err, "netlink RTM_GETADDR failed")
                    if kind == _RTM_NEWADDR:
                        found.update(_message_addresses(data, off + _HDR.size, off + length))
                off += _align(length)


def _message_addresses(data: bytes, start: int, end: int):
    family = data[start]
    width = {socket.AF_INET: 4, socket.AF_INET6: 16}.get(family)
    off = start + _IFADDR.size
    while width and off + _RTA.size <= end:
        rta_len, rta_type = _RTA.unpack_from(data, off)
        if rta_len < _RTA.size:
            break
        if rta_type in (_IFA_ADDRESS, _IFA_LOCAL, _IFA_BROADCAST) \
                and rta_len - _RTA.size == width:
            raw = data[off + _RTA.size:off + rta_len]
            yield ipaddress.ip_address(raw)
        off += _align(rta_len)
