"""Reference data for the egress proxy's address policy, copied row by row from the IANA
registries (not from the product's table, and not from the running Python's `ipaddress`
flags, which changed in 3.12.4 and 3.13):

- IANA IPv4 Special-Purpose Address Registry (iana-ipv4-special-registry), column
  "Globally Reachable";
- IANA IPv6 Special-Purpose Address Registry (iana-ipv6-special-registry), same column;
- IANA IPv4 Address Space Registry: 224.0.0.0/4 multicast (never a TCP peer);
- IANA IPv6 Address Space Registry: only 2000::/3 is Global Unicast; ff00::/8 multicast.

The reference classifier below is written independently of runner/sandbox/addresses.py (integer
ranges, most specific registry row wins) and states the embedding rules of SPEC.md: an IPv6
form that embeds an IPv4 address (IPv4-mapped, NAT64 well-known prefix, 6to4) is public only
when the IPv4 address is; Teredo, NAT64 local-use, IPv4-compatible and SIIT forms never are.
"""

from __future__ import annotations

import functools
import ipaddress

# (block, name, globally reachable: True / False / None for "N/A")
IPV4_SPECIAL = [
    ("0.0.0.0/8", "This network", False),
    ("0.0.0.0/32", "This host on this network", False),
    ("10.0.0.0/8", "Private-Use", False),
    ("100.64.0.0/10", "Shared Address Space", False),
    ("127.0.0.0/8", "Loopback", False),
    ("169.254.0.0/16", "Link Local", False),
    ("172.16.0.0/12", "Private-Use", False),
    ("192.0.0.0/24", "IETF Protocol Assignments", False),
    ("192.0.0.0/29", "IPv4 Service Continuity Prefix", False),
    ("192.0.0.8/32", "IPv4 dummy address", False),
    ("192.0.0.9/32", "Port Control Protocol Anycast", True),
    ("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", True),
    ("192.0.0.170/32", "NAT64/DNS64 Discovery", False),
    ("192.0.0.171/32", "NAT64/DNS64 Discovery", False),
    ("192.0.2.0/24", "Documentation (TEST-NET-1)", False),
    ("192.31.196.0/24", "AS112-v4", True),
    ("192.52.193.0/24", "AMT", True),
    ("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", None),
    ("192.168.0.0/16", "Private-Use", False),
    ("192.175.48.0/24", "Direct Delegation AS112 Service", True),
    ("198.18.0.0/15", "Benchmarking", False),
    ("198.51.100.0/24", "Documentation (TEST-NET-2)", False),
    ("203.0.113.0/24", "Documentation (TEST-NET-3)", False),
    ("240.0.0.0/4", "Reserved", False),
    ("255.255.255.255/32", "Limited Broadcast", False),
]
IPV4_MULTICAST = "224.0.0.0/4"

IPV6_SPECIAL = [
    ("::1/128", "Loopback Address", False),
    ("::/128", "Unspecified Address", False),
    ("::ffff:0:0/96", "IPv4-mapped Address", False),
    ("64:ff9b::/96", "IPv4-IPv6 Translat.", True),
    ("64:ff9b:1::/48", "IPv4-IPv6 Translat.", False),
    ("100::/64", "Discard-Only Address Block", False),
    ("100:0:0:1::/64", "Dummy IPv6 Prefix", False),
    ("2001::/23", "IETF Protocol Assignments", False),
    ("2001::/32", "TEREDO", None),
    ("2001:1::1/128", "Port Control Protocol Anycast", True),
    ("2001:1::2/128", "Traversal Using Relays around NAT Anycast", True),
    ("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", True),
    ("2001:2::/48", "Benchmarking", False),
    ("2001:3::/32", "AMT", True),
    ("2001:4:112::/48", "AS112-v6", True),
    ("2001:10::/28", "Deprecated (previously ORCHID)", False),
    ("2001:20::/28", "ORCHIDv2", True),
    ("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", True),
    ("2001:db8::/32", "Documentation", False),
    ("2002::/16", "6to4", None),
    ("2620:4f:8000::/48", "Direct Delegation AS112 Service", True),
    ("3fff::/20", "Documentation", False),
    ("5f00::/16", "Segment Routing (SRv6) SIDs", False),
    ("fc00::/7", "Unique-Local", False),
    ("fe80::/10", "Link-Local Unicast", False),
]
IPV6_GLOBAL_UNICAST = "2000::/3"
IPV6_MULTICAST = "ff00::/8"


def _rows(table):
    out = []
    for block, _, reachable in table:
        net = ipaddress.ip_network(block)
        out.append((int(net.network_address), int(net.broadcast_address), net.prefixlen,
                    reachable is True))
    return out


_V4, _V6 = _rows(IPV4_SPECIAL), _rows(IPV6_SPECIAL)


def _lookup(rows, n: int):
    """The most specific registry row holding n: its reachability, or None when no row does."""
    best = None
    for lo, hi, plen, ok in rows:
        if lo <= n <= hi and (best is None or plen > best[0]):
            best = (plen, ok)
    return None if best is None else best[1]


@functools.cache
def _bounds(block: str) -> tuple[int, int]:
    net = ipaddress.ip_network(block)
    return int(net.network_address), int(net.broadcast_address)


def _in(block: str, n: int) -> bool:
    lo, hi = _bounds(block)
    return lo <= n <= hi


def v4_public(n: int) -> bool:
    if _in(IPV4_MULTICAST, n):
        return False
    found = _lookup(_V4, n)
    return True if found is None else found


def v6_public(n: int) -> bool:
    if _in("::ffff:0:0/96", n):  # IPv4-mapped: the IPv4 host itself
        return v4_public(n & 0xFFFFFFFF)
    if _in("64:ff9b::/96", n):  # NAT64 well-known prefix (RFC 6052): the last 32 bits
        return v4_public(n & 0xFFFFFFFF)
    if _in("2002::/16", n):  # 6to4 (RFC 3056): bits 16..47
        return v4_public((n >> 80) & 0xFFFFFFFF)
    if _in(IPV6_MULTICAST, n):
        return False
    found = _lookup(_V6, n)
    if found is not None:
        return found
    return _in(IPV6_GLOBAL_UNICAST, n)


def reference_public(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return v4_public(int(ip)) if ip.version == 4 else v6_public(int(ip))


def boundaries(version: int) -> list[int]:
    """Every registry block's first and last address and their neighbours (where tables
    disagree, they disagree at an edge)."""
    blocks = [b for b, _, _ in (IPV4_SPECIAL if version == 4 else IPV6_SPECIAL)]
    blocks += [IPV4_MULTICAST] if version == 4 else [IPV6_GLOBAL_UNICAST, IPV6_MULTICAST,
                                                    "::/96", "::ffff:0:0:0/96"]
    top = (1 << (32 if version == 4 else 128)) - 1
    out = set()
    for b in blocks:
        net = ipaddress.ip_network(b)
        for n in (int(net.network_address), int(net.broadcast_address)):
            out.update(x for x in (n - 1, n, n + 1) if 0 <= x <= top)
    return sorted(out)
