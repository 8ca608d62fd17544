"""The allreduce scenario's fabric on a k-ary fat-tree (``--topology fat-tree --k K``), with the
aggregation as a hierarchy: every edge switch (ToR) sums its k/2 hosts, aggregation switch 1 of
each pod sums its k/2 edges, core 1 sums the k pods and multicasts the result down the same tree
(docs/allreduce.md says why a hierarchy and not one switch).

Every switch runs ``programs/allreduce.p4``. The tree's switches get ``job_cfg``: the root
``set_job(k, group)``, the others ``set_job_up(children, group, up_port, child)`` (a full slot
goes up as worker ``child`` of the parent); multicast group 1 reaches the children; the edges'
``worker_addr`` writes each host's address into its copy of the result. Each host is worker
``port - 1`` of its edge and sends to its gateway's address. For the ring baseline, ``ipv4_lpm``
routes up the same tree: a /32 per host at the edges, a /24 per edge at the aggregation
switches, a /16 per pod at the cores, and a default route up.
"""
from __future__ import annotations

from typing import Any

from dataplane.net.parallel.session import build_network
from dataplane.net.topology.generators import fat_tree
from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec

JOB, MC_GROUP = 1, 1


def _ip(value: int) -> str:
    return ".".join(str((value >> s) & 0xFF) for s in (24, 16, 8, 0))


def build_fat_tree(k: int, program: Any, bandwidth_bps: int, latency_ns: int, loss: float, seed: int,
                   queue_packets: int) -> tuple[Any, list[tuple[Any, int, int]]]:
    """The network (on this rank's part under mpiexec) and, in host order, (host, worker id at its
    edge, the address it sends to: its gateway)."""
    gen = fat_tree(k, name=f"allreduce-fat-tree-k{k}")
    half = k // 2
    spec = TopologySpec(gen.name)
    for name in gen.switches:
        spec.switches[name] = SwitchSpec(name=name, program=program)
    for name, gh in gen.hosts.items():
        spec.hosts[name] = HostSpec(name=name, mac=gh.mac, ip=gh.ip, prefix_len=gh.prefix_len, gateway=gh.gateway,
                                    static_arp=dict(gh.static_arp))
    for a, b in gen.links:
        spec.links.append(LinkSpec(a=a, b=b, bandwidth_bps=bandwidth_bps, latency_ns=latency_ns, loss=loss,
                                   queue=(queue_packets, "packets")))
    net = build_network(spec, seed=seed)
    for p in range(1, k + 1):
        for e in range(1, half + 1):
            api = net.switch(f"edge{p}_{e}").api
            hosts = [gh for gh in gen.hosts.values() if gh.switch == f"edge{p}_{e}"]
            for gh in hosts:
                api.table_add("ipv4_lpm", "ipv4_forward", [f"{_ip(gh.ip)}/32"], {"dstAddr": gh.mac, "port": gh.port})
                api.table_add("worker_addr", "set_worker", [gh.port], {"mac": gh.mac, "ip": gh.ip})
            api.table_add("ipv4_lpm", "ipv4_forward", ["0.0.0.0/0"], {"dstAddr": 0, "port": half + 1})
            api.table_add("job_cfg", "set_job_up", [JOB], {"n_workers": len(hosts), "grp": MC_GROUP,
                                                            "up_port": half + 1, "child": e - 1})
            api.mc_group_create(MC_GROUP, [(gh.port, 0) for gh in hosts])
        for a in range(1, half + 1):
            api = net.switch(f"agg{p}_{a}").api
            for e in range(1, half + 1):
                api.table_add("ipv4_lpm", "ipv4_forward", [f"10.{p}.{e}.0/24"], {"dstAddr": 0, "port": e})
            api.table_add("ipv4_lpm", "ipv4_forward", ["0.0.0.0/0"], {"dstAddr": 0, "port": half + 1})
        api = net.switch(f"agg{p}_1").api
        api.table_add("job_cfg", "set_job_up", [JOB], {"n_workers": half, "grp": MC_GROUP,
                                                        "up_port": half + 1, "child": p - 1})
        api.mc_group_create(MC_GROUP, [(e, 0) for e in range(1, half + 1)])
    for c in range(1, half * half + 1):
        api = net.switch(f"core{c}").api
        for p in range(1, k + 1):
            api.table_add("ipv4_lpm", "ipv4_forward", [f"10.{p}.0.0/16"], {"dstAddr": 0, "port": p})
    root = net.switch("core1").api
    root.table_add("job_cfg", "set_job", [JOB], {"n_workers": k, "grp": MC_GROUP})
    root.mc_group_create(MC_GROUP, [(p, 0) for p in range(1, k + 1)])
    for node in list(net.switches.values()) + list(net.hosts.values()):
        for port in node.ports.values():
            port.record_depth = False
    workers = [(net.host(name), gh.port - 1, gh.gateway) for name, gh in gen.hosts.items()]
    return net, workers
