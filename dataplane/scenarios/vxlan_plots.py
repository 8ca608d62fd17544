"""The figure of ``dataplane scenario vxlan`` (``docs/vxlan.png`` is made by this code).

Left: host CPU cores per server spent on VXLAN, software VTEP against DPU offload, one pair
of bars per result row (labelled by offered rate when the rows differ in rate, else by tenant
count), with the DPUs' mean utilisation written on the offload bars. Right: the outer UDP
source ports each spine carried (one dot per port, its area the packets) in one row's
offload run (``spread``, default the first row): the entropy the VTEPs put in the outer
header is what spreads the tunnels over the spines.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from dataplane.net.capture.plots import pyplot


def plot_vxlan(rows: list[dict[str, Any]], path: Path, spread: dict[str, Any] | None = None) -> bool:
    """Write the figure to ``path``; False (and no file) when matplotlib is missing."""
    plt = pyplot()
    if plt is None:
        return False
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios": [1, 1.6]})
    if len({r["rate_bps"] for r in rows}) > 1:
        labels = [f"{r['rate_bps'] / 1e9:g} Gbps" for r in rows]
    else:
        labels = [f"{r['tenants']} tenant{'s' if r['tenants'] != 1 else ''}" for r in rows]
    x = range(len(rows))
    soft = [r["modes"]["software"]["host_cores_per_host"] for r in rows]
    off = [r["modes"]["offload"]["host_cores_per_host"] for r in rows]
    ax.bar([i - 0.2 for i in x], soft, 0.4, label="software VTEP", color="tab:red")
    ax.bar([i + 0.2 for i in x], off, 0.4, label="DPU offload", color="tab:blue")
    top = max(soft + off + [1.0])
    for i, r in zip(x, rows):
        util = r["modes"]["offload"]["dpu_utilisation_mean"] or 0.0
        ax.text(i + 0.2, off[i] + top * 0.02, f"{off[i]:.1f}\nDPU\n{util * 100:.0f}%", ha="center", va="bottom",
                fontsize=7)
        ax.text(i - 0.2, soft[i] + top * 0.02, f"{soft[i]:.1f}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(x), labels, fontsize=8)
    ax.set_ylim(0, top * 1.3)
    ax.set_ylabel("host CPU cores per server")
    r0 = rows[0]
    rate = "offered load" if len({r["rate_bps"] for r in rows}) > 1 else f"{r0['rate_bps'] / 1e9:g} Gbps"
    ax.set_title(f"{rate} per VM, {r0['hosts']} servers; software: {r0['host_ns_per_packet']} ns/packet",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper right")

    sr = spread or r0
    by_spine = sr["modes"]["offload"]["sport_by_spine"]
    share = sr["modes"]["offload"]["spine_share"]
    peak = max((n for sports in by_spine.values() for n in sports.values()), default=1)
    for k, (_spine, sports) in enumerate(by_spine.items()):
        ports = [int(p) for p in sports]
        sizes = [40 * n / peak for n in sports.values()]
        ax2.scatter(ports, [k] * len(ports), s=sizes, alpha=0.6)
    ax2.set_yticks(range(len(by_spine)), [f"{s}\n{share[s] * 100:.1f}%" for s in by_spine])
    ax2.set_xlim(49152, 65536)
    ax2.set_ylim(-0.7, len(by_spine) - 0.3)
    ax2.set_xlabel("outer UDP source port (49152-65535)")
    ax2.set_title(f"outer source ports per spine ({sr['tenants']} tenants, {sr['hosts']} servers; "
                  f"share of VXLAN packets)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
