"""Table entries per second through the P4Runtime server, next to the Switch API in the same run.

The workload: N distinct /24 routes into programs/ipv4_router.p4's ``ipv4_lpm``
(``ipv4_forward`` with a MAC and a port). The baseline installs them with
``Switch.table_add`` in-process; the server gets them as Write requests from a gRPC client on
loopback, ``--batch`` updates per request, then gives them all back to one wildcard Read.
The ratio server/baseline is what the RPC layer (protobuf encoding, gRPC, id translation)
costs. protobuf is the pure-Python 3.20 build that p4runtime's modules need (see
pyproject.toml), which is most of that cost.

    python tools/bench_p4runtime.py [--entries N] [--batch N] [--repeat N] [--json]
"""
from __future__ import annotations

import argparse
import json
import time

import grpc
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from dataplane.control.device_config import make_device_config
from dataplane.control.live import LiveSwitch
from dataplane.control.p4info import build_p4info
from dataplane.control.p4runtime.server import P4RuntimeServer
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_file
from dataplane.resources import builtin_program


def routes(n: int) -> list[tuple[int, int, int]]:
    """(prefix as an int, MAC, port) for n distinct /24s."""
    return [((10 << 24) | (i << 8), 0x080000000000 | i, 1 + i % 8) for i in range(n)]


def bench_switch_api(program, rs) -> float:
    sw = Switch(program)
    start = time.perf_counter()
    for prefix, mac, port in rs:
        sw.table_add("ipv4_lpm", "ipv4_forward", [(prefix, 24)], [mac, port])
    return time.perf_counter() - start


def _stream(stub, device_id: int):
    """A primary's arbitration stream (kept open while the writes run)."""
    import queue

    out: queue.Queue = queue.Queue()
    req = p4runtime_pb2.StreamMessageRequest()
    req.arbitration.device_id = device_id
    req.arbitration.election_id.low = 1
    out.put(req)
    responses = stub.StreamChannel(iter(out.get, None))
    next(responses)
    return out, responses


def bench_server(program, path, rs, batch: int) -> tuple[float, float]:
    p4info = build_p4info(program)
    table = next(t for t in p4info.tables if t.preamble.name.endswith("ipv4_lpm"))
    action = next(a for a in p4info.actions if a.preamble.name.endswith("ipv4_forward"))
    server = P4RuntimeServer(LiveSwitch(None, device_id=1), "127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        out, _ = _stream(stub, 1)
        set_req = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=1, action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        set_req.election_id.low = 1
        set_req.config.p4info.CopyFrom(p4info)
        set_req.config.p4_device_config = make_device_config(path)
        stub.SetForwardingPipelineConfig(set_req)
        requests = []
        for i in range(0, len(rs), batch):
            req = p4runtime_pb2.WriteRequest(device_id=1)
            req.election_id.low = 1
            for prefix, mac, port in rs[i:i + batch]:
                e = req.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
                e.table_id = table.preamble.id
                lpm = e.match.add(field_id=table.match_fields[0].id).lpm
                lpm.value, lpm.prefix_len = prefix.to_bytes(4, "big"), 24
                e.action.action.action_id = action.preamble.id
                e.action.action.params.add(param_id=action.params[0].id, value=mac.to_bytes(6, "big"))
                e.action.action.params.add(param_id=action.params[1].id, value=port.to_bytes(2, "big"))
            requests.append(req)
        start = time.perf_counter()
        for req in requests:
            stub.Write(req)
        write = time.perf_counter() - start
        read_req = p4runtime_pb2.ReadRequest(device_id=1)
        read_req.entities.add().table_entry.table_id = table.preamble.id
        start = time.perf_counter()
        got = sum(len(r.entities) for r in stub.Read(read_req))
        read = time.perf_counter() - start
        assert got == len(rs), (got, len(rs))
        out.put(None)
        return write, read
    finally:
        channel.close()
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=5000)
    ap.add_argument("--batch", type=int, default=100, help="updates per Write request")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    path = builtin_program("ipv4_router")
    program = compile_file(path).program
    rs = routes(args.entries)
    api = min(bench_switch_api(program, rs) for _ in range(args.repeat))
    runs = [bench_server(program, path, rs, args.batch) for _ in range(args.repeat)]
    write, read = min(r[0] for r in runs), min(r[1] for r in runs)
    n = args.entries
    result = {"entries": n, "batch": args.batch, "switch_api_per_s": n / api, "p4runtime_write_per_s": n / write,
              "p4runtime_read_per_s": n / read, "write_ratio_to_switch_api": api / write}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{n} LPM entries, {args.batch} updates per Write, best of {args.repeat}")
    print(f"  Switch.table_add (in-process): {result['switch_api_per_s']:>10,.0f} entries/s")
    print(f"  P4Runtime Write over gRPC:     {result['p4runtime_write_per_s']:>10,.0f} entries/s"
          f"   ({result['write_ratio_to_switch_api']:.2f}x the Switch API)")
    print(f"  P4Runtime wildcard Read:       {result['p4runtime_read_per_s']:>10,.0f} entries/s")


if __name__ == "__main__":
    main()
