"""Which addresses a live step may reach: our own table, from the IANA registries.

The running Python's `ipaddress.is_global` / `is_private` cannot be the rule: their tables
changed in 3.12.4 and 3.13 (the same address was global under one patch release and not under
the next), and they treat IPv4-embedding IPv6 forms as ordinary IPv6 (`64:ff9b::a9fe:a9fe`, the
metadata service behind NAT64, was "global"). `ipaddress` is used here to parse only.

Rules (SPEC.md, "Network"):
- IPv4: public unless a row of the IANA IPv4 Special-Purpose Address Registry says it is not
  globally reachable (the most specific row wins: 192.0.0.9/32 is reachable inside the
  unreachable 192.0.0.0/24), and never multicast (224/4);
- IPv6 forms that embed an IPv4 address and reach it: IPv4-mapped `::ffff:a.b.c.d`, the NAT64
  well-known prefix `64:ff9b::/96` (RFC 6052) and 6to4 `2002::/16` (RFC 3056): public exactly
  when the embedded IPv4 address is;
- every other IPv6 address: inside 2000::/3 (the only Global Unicast space IANA allocates:
  so `::a.b.c.d` IPv4-compatible, SIIT `::ffff:0:a.b.c.d`, `64:ff9b:1::/48` local-use NAT64 and
  multicast are out) and not in a special-purpose row that is not globally reachable
  (Teredo 2001::/32 is "N/A": refused, its client address is obfuscated and its server's is
  not the peer).
tests/sandbox/test_egress_policy.py compares this with a reference built from the registries'
own rows on generated addresses.
"""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# (block, globally reachable) as the registries say; "N/A" counts as not reachable.
_V4_ROWS = (
    ("0.0.0.0/8", False), ("10.0.0.0/8", False), ("100.64.0.0/10", False),
    ("127.0.0.0/8", False), ("169.254.0.0/16", False), ("172.16.0.0/12", False),
    ("192.0.0.0/24", False), ("192.0.0.9/32", True), ("192.0.0.10/32", True),
    ("192.0.2.0/24", False), ("192.88.99.0/24", False), ("192.168.0.0/16", False),
    ("198.18.0.0/15", False), ("198.51.100.0/24", False), ("203.0.113.0/24", False),
    ("224.0.0.0/4", False),  # multicast (IPv4 Address Space registry)
    ("240.0.0.0/4", False),  # reserved, and 255.255.255.255 with it
)
_V6_ROWS = (
    ("2001::/23", False), ("2001::/32", False),  # IETF assignments; Teredo (N/A)
    ("2001:1::1/128", True), ("2001:1::2/128", True), ("2001:1::3/128", True),
    ("2001:2::/48", False), ("2001:3::/32", True), ("2001:4:112::/48", True),
    ("2001:10::/28", False), ("2001:20::/28", True), ("2001:30::/28", True),
    ("2001:db8::/32", False), ("3fff::/20", False), ("5f00::/16", False),
)
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIXTOFOUR = ipaddress.IPv6Network("2002::/16")
_COMPATIBLE = ipaddress.IPv6Network("::/96")
_SIIT = ipaddress.IPv6Network("::ffff:0:0:0/96")


def _table(rows):
    # most specific first: the first row holding an address decides
    nets = [(ipaddress.ip_network(block), ok) for block, ok in rows]
    return tuple(sorted(nets, key=lambda r: r[0].prefixlen, reverse=True))


_V4, _V6 = _table(_V4_ROWS), _table(_V6_ROWS)


def parse(address: str) -> IPAddress | None:
    """The address without a zone index (`fe80::1%eth0`), or None when it is not one."""
    try:
        return ipaddress.ip_address(str(address).split("%", 1)[0])
    except ValueError:
        return None


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (mapped, NAT64 well-known, 6to4, and the refused
    IPv4-compatible and SIIT forms, so a caller can also check it against this machine)."""
    n = int(ip)
    if ip in _MAPPED or ip in _NAT64 or ip in _SIIT or (ip in _COMPATIBLE and n > 1):
        return ipaddress.IPv4Address(n & 0xFFFFFFFF)
    if ip in _SIXTOFOUR:
        return ipaddress.IPv4Address((n >> 80) & 0xFFFFFFFF)
    return None


def _v4_public(ip: ipaddress.IPv4Address) -> bool:
    for net, ok in _V4:
        if ip in net:
            return ok
    return True


def is_public_ip(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv4Address):
        return _v4_public(ip)
    if ip in _MAPPED or ip in _NAT64 or ip in _SIXTOFOUR:
        inner = embedded_ipv4(ip)
        return inner is not None and _v4_public(inner)
    if ip not in _GLOBAL_UNICAST:
        return False
    for net, ok in _V6:
        if ip in net:
            return ok
    return True


def is_public(address: str) -> bool:
    """May a live step's traffic go to `address` (a literal, as getaddrinfo returns it)?
    This machine's own interfaces are checked apart (interfaces.py), per request."""
    ip = parse(address)
    return ip is not None and is_public_ip(ip)
