"""The load-balancing schemes: their programs and settings (``LbConfig``), and setting up a switch.

Every scheme is a built-in program (``programs/<scheme>.p4``) with the routes of
``ecmp_router.p4`` and a configuration table of its own whose default action the control plane
sets (``configure``):

* ``ecmp``: ``hash_config`` = set_hash(seed, fields) (``hash_seed``, ``hash_fields``);
* ``flowlet``: ``flowlet_config`` = set_flowlet(timeout_us, mode, shift) (``flowlet_us``,
  ``flowlet_choice``: random, LetFlow's, or least-loaded; ``load_shift``);
* ``spray``: ``spray_config`` = set_spray(mode) (``spray_order``: round-robin or random);
* ``adaptive``: ``adaptive_config`` = set_adaptive(shift) (``load_shift``: loads are compared
  in units of 2^shift bytes, ``programs/lb_least_loaded.p4h``); with ``adaptive_mode`` "path"
  (CONGA's path feedback between edge switches, ``programs/adaptive.p4``) also ``path_config``
  = set_path(edge, leaf, age, shift, share) on every switch (edge: it has hosts, whose /24 is
  ``leaf_id``; ``path_age_us``; the congestion quantum 2^``path_shift`` bytes; ``path_share``
  of 256 packets heed the paths' congestion); with ``path_avoid`` = (up, down) also
  ``avoid_config`` = set_avoid(up, down): every packet passes a member over on a tie with a
  chance kept per (leaf, member), raised by ``up``/256 on each congested report and lowered by
  ``down``/256 on each clear one (instead of the share heeding the metrics);
* ``reps``: the hosts spray (``dataplane.net.rdma.entropy``: every packet's UDP source port
  chosen by its sender, recycled while its path is not congested) and the switches run
  ``ecmp.p4`` (``hash_config`` as ecmp's), marking CE by how long a packet waited in its queue
  (``ecn_profile`` = ecn_delay(kmin_us, kmax_us, 100%), ``mark_us``): the marks are what the
  senders steer by. Its senders keep at most ``transport_window`` packets in flight (IRN's
  BDP flow control; without a bound line-rate senders keep every path past the marking
  threshold, and the marks stop telling paths apart). With ``spray_acks`` the responders send
  each ACK on a fresh random entropy too (``EntropyParams.spray_acks``), so that no flow's
  ACKs all wait behind the data queued on one path; with ``explore_every`` n every n-th data
  packet takes a fresh entropy even when the sender holds good ones
  (``EntropyParams.explore_every``).

``window`` bounds the packets in flight of every flow under any scheme (None: unbounded, as
RoCE NICs; reps: ``REPS_WINDOW``); ``window_counts`` says how they are counted (the transport's
``TransportConfig.window_counts``: the PSN span, or the pipe of the selective sender).
``ack_priority`` puts ACKs and NAKs in a class the switches serve first: the hosts send them
with ``ACK_DSCP``, every switch port gets ``ACK_QUEUES`` queues in strict priority, and the
programs queue a packet by its IP precedence (``programs/lb_routes.p4h``), as htsim's switch
queues serve control packets ahead of data. Behind a bottleneck's data an ACK waits as long as
the data does, and a window-bound sender whose ACKs cross that bottleneck the other way slows
down with it.

Schemes that compare their ports' loads (adaptive; flowlet with least-loaded) also get
``ecmp_members`` entries, the ports of each ECMP group in select order, made from the same
routes (``member_entries``); with ``components`` also ``ecmp_components`` entries, the
symmetric components DRILL splits an asymmetric switch's groups into (``component_entries``).
Only ``ecmp`` hashes, so only it keeps the generator's hash stride (``routes``); the others get
groups of one select per member.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from dataplane.net.rdma.config import WINDOW_COUNTS

__all__ = ["SCHEMES", "ADAPTIVE_MODES", "FLOWLET_CHOICES", "leaf_id", "SPRAY_ORDERS", "HASH_FIELDS", "MAX_MEMBERS", "REPS_WINDOW", "ACK_DSCP",
           "ACK_QUEUES", "LbConfig",
           "member_entries", "component_entries", "configure"]

SCHEMES = ("ecmp", "flowlet", "spray", "adaptive", "reps")
FLOWLET_CHOICES = ("random", "least-loaded")
SPRAY_ORDERS = ("round-robin", "random")
#: adaptive: its own ports' backlog only (DRILL), or also each path's congestion fed back (CONGA)
ADAPTIVE_MODES = ("local", "path")
#: hash_config's field bits, in the order the 5-tuple is hashed
HASH_FIELDS = {"src": 1, "dst": 2, "proto": 4, "sport": 8, "dport": 16}
#: the members LeastLoaded compares (set_members' ports)
MAX_MEMBERS = 8
#: reps' packets in flight per flow unless ``window`` says: about 1.6 times the bandwidth-delay
#: product of a 100G fat-tree's longest path with 1 us links (58 packets: a 14 us round trip
#: and the 16 packets an ACK waits for), so no bound while the paths are clear
REPS_WINDOW = 96
#: ``ack_priority``: the ACKs' DSCP (CS6, as RoCE's CNPs, ``dcqcn_wire.CNP_TOS``): precedence 6,
#: so queue 6 of the ACK_QUEUES strict-priority queues every switch port then has; data keeps 0
ACK_DSCP = 48
ACK_QUEUES = 8
ECMP_TABLE = "MyIngress.ecmp_nhop"
MEMBERS_TABLE = "MyIngress.least_loaded.ecmp_members"
MEMBERS_ACTION = "MyIngress.least_loaded.set_members"
COMPONENTS_TABLE = "MyIngress.least_loaded.ecmp_components"
COMPONENTS_ACTION = "MyIngress.least_loaded.set_components"


@dataclass(frozen=True)
class LbConfig:
    """A scheme and its settings (module docstring)."""

    scheme: str = "ecmp"
    hash_seed: int = 0
    hash_fields: tuple[str, ...] = tuple(HASH_FIELDS)
    flowlet_us: int = 50
    flowlet_choice: str = "random"
    spray_order: str = "round-robin"
    load_shift: int = 14
    mark_us: tuple[int, int] = (2, 20)
    window: int | None = None
    adaptive_mode: str = "local"
    path_age_us: int = 50
    path_shift: int = 17
    path_share: int = 64
    path_avoid: tuple[int, int] | None = None
    window_counts: str = "span"
    spray_acks: bool = False
    ack_priority: bool = False
    explore_every: int = 0
    wcmp: bool = False
    components: bool = False

    def __post_init__(self) -> None:
        if self.window_counts not in WINDOW_COUNTS:
            raise ValueError(f"the window counts one of {', '.join(WINDOW_COUNTS)}, got {self.window_counts!r}")
        if self.scheme not in SCHEMES:
            raise ValueError(f"unknown load-balancing scheme {self.scheme!r} (one of {', '.join(SCHEMES)})")
        if not 0 <= self.hash_seed < 2**32:
            raise ValueError(f"the hash seed must be in 0..2^32-1, got {self.hash_seed}")
        unknown = [f for f in self.hash_fields if f not in HASH_FIELDS]
        if unknown or not self.hash_fields:
            raise ValueError(f"hash fields are some of {', '.join(HASH_FIELDS)}, got {', '.join(self.hash_fields) or 'none'}")
        if not 1 <= self.flowlet_us < 2**31:
            raise ValueError(f"the flowlet timeout must be a positive number of microseconds, got {self.flowlet_us}")
        if self.flowlet_choice not in FLOWLET_CHOICES:
            raise ValueError(f"flowlet choice is one of {', '.join(FLOWLET_CHOICES)}, got {self.flowlet_choice!r}")
        if not 0 <= self.load_shift <= 31:
            raise ValueError(f"the load quantum is 2^shift bytes with shift in 0..31, got {self.load_shift}")
        kmin, kmax = self.mark_us
        if not 0 <= kmin < kmax < 2**32:
            raise ValueError(f"the marking delays are 0 <= kmin < kmax microseconds, got {kmin}, {kmax}")
        if self.window is not None and not 1 <= self.window <= 65536:
            raise ValueError(f"the window is 1..65536 packets, got {self.window}")
        if self.adaptive_mode not in ADAPTIVE_MODES:
            raise ValueError(f"adaptive mode is one of {', '.join(ADAPTIVE_MODES)}, got {self.adaptive_mode!r}")
        if not 1 <= self.path_age_us < 2**32:
            raise ValueError(f"the path metrics' age is a positive number of microseconds, got {self.path_age_us}")
        if not self.load_shift <= self.path_shift <= 31:
            raise ValueError(f"the path congestion quantum is 2^shift bytes with shift in {self.load_shift}..31 "
                             f"(no finer than the load quantum), got {self.path_shift}")
        if not 0 <= self.path_share <= 256:
            raise ValueError(f"the share of packets that heed the path metrics is 0..256 (of 256), got {self.path_share}")
        if self.path_avoid is not None and not all(1 <= step <= 256 for step in self.path_avoid):
            raise ValueError(f"the avoidance steps are 1..256 (of 256) each, got {self.path_avoid}")
        if self.spray_acks and self.scheme != "reps":
            raise ValueError(f"spraying the ACKs is reps' (the hosts choose the entropy), not {self.scheme}'s")
        if self.explore_every and self.scheme != "reps":
            raise ValueError(f"exploring fresh entropy is reps' (the hosts choose it), not {self.scheme}'s")
        if not 0 <= self.explore_every <= 1 << 20:
            raise ValueError(f"explore_every is 0..2^20 packets (0: never), got {self.explore_every}")
        if self.components and not self.compares_loads:
            raise ValueError(f"symmetric components split a group for the least-loaded choice (adaptive, flowlet "
                             f"least-loaded), not {self.scheme}'s")
        if self.spray_order not in SPRAY_ORDERS:
            raise ValueError(f"spray order is one of {', '.join(SPRAY_ORDERS)}, got {self.spray_order!r}")

    @property
    def program(self) -> str:
        """The built-in program's name."""
        return "ecmp" if self.scheme == "reps" else self.scheme

    @property
    def hashes(self) -> bool:
        """The switches pick members by a hash of the 5-tuple (they keep the generator's stride)."""
        return self.scheme in ("ecmp", "reps")

    @property
    def host_entropy(self) -> bool:
        """The hosts choose each packet's entropy (``reps``): the transport needs its ``entropy``."""
        return self.scheme == "reps"

    @property
    def transport_window(self) -> int | None:
        """The packets in flight per flow: ``window``, else REPS_WINDOW for reps, else no bound."""
        if self.window is not None:
            return self.window
        return REPS_WINDOW if self.scheme == "reps" else None

    @property
    def compares_loads(self) -> bool:
        return self.scheme == "adaptive" or (self.scheme == "flowlet" and self.flowlet_choice == "least-loaded")

    @property
    def field_mask(self) -> int:
        return sum(HASH_FIELDS[f] for f in set(self.hash_fields))

    def describe(self) -> str:
        window = self.transport_window
        pipe = self.window_counts == "pipe"
        text = f", window {window} packets" + (" in the pipe" if pipe else "") if window is not None else \
            (", the span within the reorder window" if pipe else "")
        return (self._scheme_text() + text + (", ACKs served first" if self.ack_priority else "")
                + (", WCMP routes" if self.wcmp else "") + (", symmetric components" if self.components else ""))

    def _scheme_text(self) -> str:
        if self.scheme == "ecmp":
            fields = "5-tuple" if self.field_mask == 31 else "+".join(f for f in HASH_FIELDS if f in self.hash_fields)
            return f"ecmp (hash seed {self.hash_seed}, {fields})"
        quantum = f"{1 << self.load_shift} B quantum"
        if self.scheme == "flowlet":
            choice = self.flowlet_choice + (f", {quantum}" if self.flowlet_choice == "least-loaded" else "")
            return f"flowlet ({self.flowlet_us} us gap, {choice})"
        if self.scheme == "spray":
            return f"spray ({self.spray_order})"
        if self.scheme == "reps":
            acks = ", ACKs sprayed" if self.spray_acks else ""
            every = f", a fresh one every {self.explore_every} packets" if self.explore_every else ""
            return (f"reps (the hosts' entropy per packet{every}{acks}, marks past {self.mark_us[0]}..{self.mark_us[1]} "
                    "us of queue)")
        if self.adaptive_mode == "path" and self.path_avoid is not None:
            return (f"adaptive (least-loaded path: local port first, then members passed over with a chance "
                    f"raised {self.path_avoid[0]}/256 by each report of congestion past {1 << self.path_shift} B "
                    f"and lowered {self.path_avoid[1]}/256 by each clear one, aged {self.path_age_us} us; "
                    f"{quantum})")
        if self.adaptive_mode == "path":
            return (f"adaptive (least-loaded path: local port first, then the path's fed-back congestion in "
                    f"{1 << self.path_shift} B quanta, heeded by {self.path_share}/256 packets, aged "
                    f"{self.path_age_us} us; {quantum})")
        return f"adaptive (least-loaded port, {quantum})"


def _groups(entries: list[dict[str, Any]]) -> dict[int, dict[int, int]]:
    """A switch's ECMP groups from its ``ecmp_nhop`` entries: group -> select -> port."""
    groups: dict[int, dict[int, int]] = {}
    for e in entries:
        if e.get("table") == ECMP_TABLE:
            m = e["match"]
            groups.setdefault(int(m["meta.ecmp_group"]), {})[int(m["meta.ecmp_select"])] = int(e["action_params"]["port"])
    return groups


def member_entries(entries: list[dict[str, Any]], switch: str = "") -> list[dict[str, Any]]:
    """``ecmp_members`` entries from a switch's ``ecmp_nhop`` entries: each group's ports in
    select order (unused slots port 0). A group of more than MAX_MEMBERS selects is refused."""
    groups = _groups(entries)
    out = []
    for gid in sorted(groups):
        selects = groups[gid]
        if len(selects) > MAX_MEMBERS:
            raise ValueError(f"{switch}: ECMP group {gid} has {len(selects)} members; the programs that compare "
                             f"loads look at {MAX_MEMBERS} at most")
        ports = [selects.get(s, 0) for s in range(MAX_MEMBERS)]
        out.append({"table": MEMBERS_TABLE, "match": {"meta.ecmp_group": gid}, "action_name": MEMBERS_ACTION,
                    "action_params": {f"port{i}": p for i, p in enumerate(ports)}})
    return out


def component_entries(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``ecmp_components`` entries (``programs/lb_least_loaded.p4h``) from a switch's ``ecmp_nhop``
    entries: two ports are in one symmetric component when the same groups of the switch hold
    them (DRILL's decomposition); a member's component is named by the first select of its group
    in that component. Only groups with more than one component get an entry: on an even fabric
    there are none, and the choice is the plain least-loaded one.

    Membership, not weight: WCMP's weights (a port listed more often) already set each port's
    share of the round, and splitting the ports by their shares as well measured worse on a
    k=8 fat-tree with a half-rate uplink (0.03 to 0.16 points less goodput kept on four seeds,
    docs/loadbalance.md)."""
    groups = _groups(entries)
    held = {gid: set(groups[gid].values()) for gid in sorted(groups)}
    holders = {port: tuple(port in ports for ports in held.values()) for port in set().union(*held.values())}
    out = []
    for gid in sorted(groups):
        first: dict[tuple[bool, ...], int] = {}
        comps = [first.setdefault(holders[groups[gid][s]], i) for i, s in enumerate(sorted(groups[gid]))]
        if len(set(comps)) > 1:
            comps += [0] * (MAX_MEMBERS - len(comps))
            out.append({"table": COMPONENTS_TABLE, "match": {"meta.ecmp_group": gid}, "action_name": COMPONENTS_ACTION,
                        "action_params": {f"comp{i}": c for i, c in enumerate(comps)}})
    return out


def leaf_id(ip: int | str) -> int:
    """adaptive.p4's name of the leaf whose hosts are in ``ip``'s /24 (10.p.e.h): p[3:0] ++ e[7:0]."""
    addr = int(ipaddress.IPv4Address(ip))
    return (addr >> 8) & 0xFFF


def configure(api: Any, cfg: LbConfig, leaf: int | None = None) -> None:
    """Set the scheme's configuration table on a switch running its program; ``leaf``
    (``leaf_id``) names an edge switch, for adaptive's path mode."""
    if cfg.hashes:
        api.table_set_default("MyIngress.hash_config", "MyIngress.set_hash",
                              {"seed": cfg.hash_seed, "fields": cfg.field_mask})
        if cfg.scheme == "reps":
            # RED on the wait, up to certain marking at kmax (pmax 65536/65536)
            api.table_set_default("MyEgress.ecn_profile", "MyEgress.ecn_delay",
                                  {"kmin_us": cfg.mark_us[0], "kmax_us": cfg.mark_us[1], "pmax": 65536})
    elif cfg.scheme == "flowlet":
        api.table_set_default("MyIngress.flowlet_config", "MyIngress.set_flowlet",
                              {"timeout": cfg.flowlet_us, "mode": FLOWLET_CHOICES.index(cfg.flowlet_choice),
                               "shift": cfg.load_shift})
    elif cfg.scheme == "spray":
        api.table_set_default("MyIngress.spray_config", "MyIngress.set_spray",
                              {"mode": SPRAY_ORDERS.index(cfg.spray_order)})
    else:
        api.table_set_default("MyIngress.adaptive_config", "MyIngress.set_adaptive", {"shift": cfg.load_shift})
        if cfg.adaptive_mode == "path":
            # every switch raises CE in the same quantum; only edges (a leaf) insert and strip the shim
            api.table_set_default("MyIngress.path_config", "MyIngress.set_path",
                                  {"edge": int(leaf is not None), "leaf": leaf or 0, "age": cfg.path_age_us,
                                   "shift": cfg.path_shift, "share": cfg.path_share})
            if cfg.path_avoid is not None:
                api.table_set_default("MyIngress.avoid_config", "MyIngress.set_avoid",
                                      {"up": cfg.path_avoid[0], "down": cfg.path_avoid[1]})
