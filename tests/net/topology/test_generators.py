"""Generated fabrics: counts from the formulas, YAML that loads, entries that load, packets that arrive."""
from __future__ import annotations

import itertools
from collections import Counter
from functools import lru_cache

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_file
from dataplane.net.topology.generators import GeneratedTopology, GeneratorError, dragonfly, fat_tree, leaf_spine
from dataplane.net.topology.load import format_ipv4, format_mac, load_topology
from dataplane.resources import builtin_program


@lru_cache(maxsize=None)
def ecmp_program():
    return compile_file(builtin_program("ecmp_router")).program


def build(topo: GeneratedTopology, tmp_path) -> dict[str, Switch]:
    """Write the topology, load it back, and load every switch's entries into a Switch."""
    spec = load_topology(topo.write(tmp_path))
    switches = {}
    for name, sw in spec.switches.items():
        assert sw.program == builtin_program("ecmp_router").resolve()
        s = Switch(ecmp_program(), name=name)
        assert load_entries(s, sw.entries) == []
        switches[name] = s
    return switches


def wire(topo: GeneratedTopology) -> dict[tuple[str, int], tuple[str, int]]:
    """Both directions of every generated link: (node, port) -> (peer node, peer port)."""
    ends = {}
    for a, b in topo.links:
        assert a not in ends and b not in ends, "a port is used twice"
        ends[a], ends[b] = b, a
    return ends


def packet(topo: GeneratedTopology, src: str, dst: str, sport: int = 1234, dport: int = 80, ttl: int = 64,
           proto=UDP) -> bytes:
    s, d = topo.hosts[src], topo.hosts[dst]
    gw_mac = format_mac(s.static_arp[s.gateway])
    return bytes(Ether(src=format_mac(s.mac), dst=gw_mac) /
                 IP(src=format_ipv4(s.ip), dst=format_ipv4(d.ip), ttl=ttl) /
                 proto(sport=sport, dport=dport) / b"payload")


def deliver(topo, switches, ends, src: str, data: bytes):
    """Push a packet from host ``src`` hop by hop; return (host reached, bytes, switch path) or (None, None, path)."""
    node, port = ends[(src, 0)]
    path = []
    for _ in range(64):
        path.append(node)
        outs = switches[node].send(port, data)
        if not outs:
            return None, None, path
        assert len(outs) == 1
        peer = ends[(node, outs[0].port)]
        data = outs[0].data
        if peer[0] in topo.hosts:
            return peer[0], data, path
        node, port = peer
    raise AssertionError(f"forwarding loop: {path}")


def check_all_pairs(topo, switches, pairs=None):
    ends = wire(topo)
    hops = {}
    for src, dst in pairs or itertools.permutations(topo.hosts, 2):
        reached, data, path = deliver(topo, switches, ends, src, packet(topo, src, dst))
        assert reached == dst, f"{src} -> {dst} went to {reached} via {path}"
        pkt = Ether(data)
        d = topo.hosts[dst]
        assert pkt.dst == format_mac(d.mac)
        assert pkt.src == topo.switches[d.switch].mac(d.port).to_bytes(6, "big").hex(":")
        assert pkt[IP].ttl == 64 - len(path)
        recomputed = IP(bytes(pkt[IP]))
        del recomputed.chksum
        assert IP(bytes(recomputed)).chksum == pkt[IP].chksum
        hops[(src, dst)] = len(path)
    return hops


# -- counts --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [2, 4, 6, 8])
def test_fat_tree_counts(k):
    t = fat_tree(k)
    half = k // 2
    assert len(t.hosts) == k ** 3 // 4
    assert len(t.switches) == 5 * k * k // 4
    roles = Counter(s.role for s in t.switches.values())
    assert roles == {"core": half * half, "agg": k * half, "edge": k * half}
    assert len(t.links) == 3 * k ** 3 // 4            # host + edge-agg + agg-core links
    assert all(len(s.ports) == k for s in t.switches.values())   # every switch uses all k ports
    wire(t)


def test_fat_tree_k4_numbers():
    t = fat_tree(4)
    assert (len(t.switches), len(t.hosts), len(t.links)) == (20, 16, 48)
    assert len(t.switch_links) == 32


@pytest.mark.parametrize("leaves,spines,hpl", [(2, 2, 2), (4, 2, 4), (3, 5, 1)])
def test_leaf_spine_counts(leaves, spines, hpl):
    t = leaf_spine(leaves, spines, hpl)
    assert len(t.switches) == leaves + spines
    assert len(t.hosts) == leaves * hpl
    assert len(t.links) == leaves * spines + leaves * hpl
    assert all(len(t.switches[f"leaf{i}"].ports) == hpl + spines for i in range(1, leaves + 1))
    assert all(len(t.switches[f"spine{s}"].ports) == leaves for s in range(1, spines + 1))
    wire(t)


def test_dragonfly_balanced_counts():
    a, p, h = 4, 2, 2
    t = dragonfly(routers_per_group=a, hosts_per_router=p, global_links_per_router=h)
    g = a * h + 1
    assert len(t.switches) == g * a == 36
    assert len(t.hosts) == g * a * p == 72
    local = [lk for lk in t.switch_links if lk[0][0][:lk[0][0].index("r")] == lk[1][0][:lk[1][0].index("r")]]
    glob = [lk for lk in t.switch_links if lk not in local]
    assert len(local) == g * a * (a - 1) // 2 == 54
    assert len(glob) == g * (g - 1) // 2 == g * a * h // 2 == 36
    assert len(t.links) == 54 + 36 + 72
    # every pair of groups joined by exactly one global link; every router uses all p+a-1+h ports
    pairs = Counter(tuple(sorted((x[0][:x[0].index("r")], y[0][:y[0].index("r")]))) for x, y in glob)
    assert len(pairs) == g * (g - 1) // 2 and set(pairs.values()) == {1}
    assert all(sorted(s.ports) == list(range(1, p + a - 1 + h + 1)) for s in t.switches.values())
    wire(t)


def test_dragonfly_fewer_groups_parallel_links():
    t = dragonfly(groups=3, routers_per_group=2, hosts_per_router=1, global_links_per_router=2)
    glob = [lk for lk in t.switch_links if lk[0][0][:2] != lk[1][0][:2]]
    assert len(glob) == 6          # 3 groups x 4 global ports / 2: two links per pair of groups
    pairs = Counter(tuple(sorted((x[0][:2], y[0][:2]))) for x, y in glob)
    assert set(pairs.values()) == {2}
    with pytest.raises(GeneratorError, match=r"groups must be at most .* = 5 "):
        dragonfly(groups=6, routers_per_group=2, hosts_per_router=1, global_links_per_router=2)


def test_bad_parameters():
    with pytest.raises(GeneratorError, match="even"):
        fat_tree(5)
    with pytest.raises(ValueError, match="hosts_per_leaf"):     # GeneratorError is also a ValueError
        leaf_spine(2, 2, 0)


# -- addressing, YAML, determinism ----------------------------------------------------------------------

def test_addressing_is_deterministic(tmp_path):
    t = fat_tree(4)
    h = t.hosts["h1"]
    assert (format_ipv4(h.ip), h.prefix_len, format_ipv4(h.gateway), h.switch, h.port) == \
        ("10.1.1.2", 24, "10.1.1.1", "edge1_1", 1)
    assert format_mac(h.mac) == "02:00:0a:01:01:02"
    assert t.hosts["h16"].switch == "edge4_2" and format_ipv4(t.hosts["h16"].ip) == "10.4.2.3"
    assert len({x.ip for x in t.hosts.values()}) == 16 and len({x.mac for x in t.hosts.values()}) == 16
    ls = leaf_spine(2, 2, 2)
    assert [format_ipv4(x.ip) for x in ls.hosts.values()] == ["10.0.1.2", "10.0.1.3", "10.0.2.2", "10.0.2.3"]
    a, b = tmp_path / "a", tmp_path / "b"
    fat_tree(4).write(a)
    fat_tree(4).write(b)
    for f in sorted(a.rglob("*")):
        if f.is_file():
            assert f.read_bytes() == (b / f.relative_to(a)).read_bytes()


def test_written_yaml_loads_back(tmp_path):
    t = leaf_spine(2, 2, 2, bandwidth="40Gbps", latency="2us", queue="128p", fabric_bandwidth="100Gbps")
    spec = load_topology(t.write(tmp_path))
    assert spec.name == "leaf-spine"
    assert set(spec.switches) == set(t.switches) and set(spec.hosts) == set(t.hosts)
    for name, h in t.hosts.items():
        sh = spec.hosts[name]
        assert (sh.ip, sh.mac, sh.gateway, sh.prefix_len, sh.static_arp) == (h.ip, h.mac, h.gateway, 24, h.static_arp)
    host_link = next(lk for lk in spec.links if lk.b[0] == "h1")
    fabric_link = next(lk for lk in spec.links if lk.a == ("leaf1", 3))
    assert (host_link.bandwidth_bps, host_link.latency_ns, host_link.queue) == (40 * 10**9, 2000, (128, "packets"))
    assert fabric_link.bandwidth_bps == 100 * 10**9 and fabric_link.b == ("spine1", 1)
    assert (tmp_path / "leaf-spine" / "leaf1-runtime.json").is_file()


def test_shipped_leaf_spine_matches_generator(tmp_path):
    from dataplane.resources import data_dir

    shipped = data_dir("topologies")
    t = leaf_spine(2, 2, 2, bandwidth="10Gbps", latency="1us", queue="64p")
    t.write(tmp_path)
    assert (shipped / "leaf-spine.yaml").read_text() == (tmp_path / "leaf-spine.yaml").read_text()
    for name in t.switches:
        rel = t.entries_path(name)
        assert (shipped / rel).read_text() == (tmp_path / rel).read_text()


# -- entries load and packets arrive --------------------------------------------------------------------

def test_leaf_spine_every_pair(tmp_path):
    t = leaf_spine(3, 2, 2)
    hops = check_all_pairs(t, build(t, tmp_path))
    assert hops[("h1", "h2")] == 1            # same leaf
    assert hops[("h1", "h3")] == 3            # leaf, spine, leaf


def test_fat_tree_k4_every_pair(tmp_path):
    t = fat_tree(4)
    hops = check_all_pairs(t, build(t, tmp_path))
    assert len(hops) == 16 * 15
    assert hops[("h1", "h2")] == 1            # same edge switch
    assert hops[("h1", "h3")] == 3            # same pod: edge, agg, edge
    assert hops[("h1", "h5")] == 5            # other pod: edge, agg, core, agg, edge


def test_dragonfly_every_pair(tmp_path):
    t = dragonfly(routers_per_group=2, hosts_per_router=1, global_links_per_router=1)   # 3 groups
    hops = check_all_pairs(t, build(t, tmp_path))
    assert max(hops.values()) <= 4            # minimal routes: local, global, local hop at most


def test_dragonfly_balanced_sample(tmp_path):
    t = dragonfly()
    switches = build(t, tmp_path)
    names = list(t.hosts)
    pairs = [(names[i], names[(i * 7 + 13) % len(names)]) for i in range(0, len(names), 3)]
    wanted = [(s, d) for s, d in pairs if s != d]
    hops = check_all_pairs(t, switches, wanted)
    assert sorted(hops) == sorted(wanted) and max(hops.values()) <= 4      # every pair, by minimal routes


def test_ecmp_spreads_flows_across_spines(tmp_path):
    t = leaf_spine(2, 4, 1)
    switches = build(t, tmp_path)
    ends = wire(t)
    used = Counter()
    for sport in range(1000, 1200):
        reached, _, path = deliver(t, switches, ends, "h1", packet(t, "h1", "h2", sport=sport))
        assert reached == "h2"
        used[path[1]] += 1
        # the same flow always takes the same path
        assert deliver(t, switches, ends, "h1", packet(t, "h1", "h2", sport=sport))[2] == path
    assert set(used) == {"spine1", "spine2", "spine3", "spine4"}
    assert min(used.values()) > 200 / 4 / 2     # roughly even
    tcp_paths = {tuple(deliver(t, switches, ends, "h1", packet(t, "h1", "h2", sport=s, proto=TCP))[2])
                 for s in range(1000, 1040)}
    assert len(tcp_paths) > 1


def test_fat_tree_ecmp_uses_every_core(tmp_path):
    t = fat_tree(4)
    switches = build(t, tmp_path)
    ends = wire(t)
    cores = Counter()
    for sport in range(2000, 2200):
        reached, _, path = deliver(t, switches, ends, "h1", packet(t, "h1", "h16", sport=sport))
        assert reached == "h16"
        cores[path[2]] += 1
    assert set(cores) == {"core1", "core2", "core3", "core4"}    # no hash polarisation between stages


def test_router_drops(tmp_path):
    t = leaf_spine(2, 2, 1)
    switches = build(t, tmp_path)
    leaf = switches["leaf1"]
    assert leaf.send(1, packet(t, "h1", "h2", ttl=1)) == []               # TTL would reach 0
    assert len(leaf.send(1, packet(t, "h1", "h2", ttl=2))) == 1
    bad = bytearray(packet(t, "h1", "h2"))
    bad[14 + 10] ^= 0xFF                                                    # corrupt the IPv4 checksum
    assert leaf.send(1, bytes(bad)) == []
    arp = bytes.fromhex("ffffffffffff" "02000a000102" "0806") + bytes(28)
    assert leaf.send(1, arp) == []                                          # not IPv4
    unknown = bytes(Ether() / IP(src="10.0.1.2", dst="192.168.0.1") / UDP())
    assert leaf.send(1, unknown) == []                                      # no route
