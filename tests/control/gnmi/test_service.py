"""The gNMI service of one switch of a network, on loopback, with pygnmi (the real client):
Capabilities; Get's values are the fabric's counters (as ``--json`` prints them); paths with
wildcards; the gNMI specification's error codes for malformed, unimplemented and absent paths
(3.3.4 and 3.5.2.4), unsupported encodings and Set; Subscribe ONCE, POLL and STREAM (SAMPLE at
its interval of simulated time, ON_CHANGE only what changed); the subscription limit.
Skipped where grpc, protobuf or pygnmi is missing (PyPy)."""
from __future__ import annotations

import threading
import time

import pytest

grpc = pytest.importorskip("grpc")
pytest.importorskip("google.protobuf")
pygnmi_client = pytest.importorskip("pygnmi.client")

from dataplane.control.gnmi.server import GnmiServer  # noqa: E402
from dataplane.control.gnmi.service import MIN_SAMPLE_NS  # noqa: E402
from dataplane.net.apps.basic import UdpFlow  # noqa: E402
from dataplane.net.capture.metrics import port_metrics  # noqa: E402
from dataplane.net.fabric.network import Network  # noqa: E402
from dataplane.net.telemetry.counters import CounterSource  # noqa: E402
from dataplane.net.topology.load import load_topology  # noqa: E402
from dataplane.resources import data_dir  # noqa: E402

gNMIclient, gNMIException = pygnmi_client.gNMIclient, pygnmi_client.gNMIException
# pygnmi's subscriber thread re-raises the status that ends a subscription (the errors tested here)
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
COUNTERS = "/interfaces/interface[name=p1]/state/counters"
EPOCH = 1_700_000_000 * 10**9      # the Unix time given as the run's simulated 0


@pytest.fixture
def served():
    """leaf2 of the built-in leaf-spine (h3 on p1, h4 on p2), served on a port the OS picks:
    (network, the lock the server reads under, a connected pygnmi client, server)."""
    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"), seed=1)
    lock = threading.RLock()
    server = GnmiServer(CounterSource(net.switch("leaf2"), lock, epoch_ns=EPOCH), "127.0.0.1:0", max_streams=2)
    server.start()
    client = gNMIclient(target=("127.0.0.1", server.port), insecure=True)
    client.connect()
    yield net, lock, client, server
    client.close()
    server.stop()


def _run(net, lock, until_ns: int) -> None:
    with lock:
        net.run(until_ns)


def _leaves(response: dict) -> dict[str, object]:
    return {u["path"]: u["val"] for n in response["notification"] for u in n["update"]}


def _code(call) -> grpc.StatusCode:
    with pytest.raises(gNMIException) as info:
        call()
    return info.value.orig_exc.code()


def test_capabilities_name_the_models_and_encodings(served):
    """OpenConfig interfaces, ethernet and qos; JSON, JSON_IETF and PROTO; gNMI 0.8.0."""
    caps = served[2].capabilities()
    assert [m["name"] for m in caps["supported_models"]] == ["openconfig-interfaces", "openconfig-if-ethernet",
                                                             "openconfig-qos"]
    assert caps["supported_encodings"] == ["json", "json_ietf", "proto"] and caps["gnmi_version"] == "0.8.0"


def test_get_returns_the_fabrics_counters(served):
    """After 1 ms of 2 Gb/s from h1 to h3, leaf2's port to h3 reads what --json's ports say."""
    net, lock, client, _ = served
    UdpFlow(net.host("h1"), net.host("h3").ip, rate_bps=2_000_000_000, size_bytes=1000, duration_ns=1_000_000)
    _run(net, lock, 2_000_000)
    ports = port_metrics(net)["leaf2:p1"]
    assert ports["tx_packets"] > 200
    for encoding in ("proto", "json", "json_ietf"):
        got = _leaves(client.get(path=[COUNTERS], encoding=encoding))
        want = {"out-octets": ports["tx_bytes"], "out-pkts": ports["tx_packets"], "in-octets": ports["rx_bytes"],
                "in-pkts": ports["rx_packets"], "out-discards": ports["drops"], "out-errors": ports["lost"],
                "in-discards": 0, "in-errors": 0}
        prefix = "interfaces/interface[name=p1]/state/counters/"
        assert {k[len(prefix):]: int(v) for k, v in got.items()} == want, encoding
    response = client.get(path=[COUNTERS])
    assert response["notification"][0]["timestamp"] == EPOCH + 2_000_000     # simulated time, ns


def test_wildcards_select_every_matching_leaf(served):
    """``*`` for a key or a name and ``...`` for levels: every port's, and only the leaves named."""
    client = served[2]
    octets = _leaves(client.get(path=["/interfaces/interface[name=*]/state/counters/out-octets"]))
    assert sorted(octets) == [f"interfaces/interface[name=p{i}]/state/counters/out-octets" for i in (1, 2, 3, 4)]
    pause = _leaves(client.get(path=["/interfaces/.../in-mac-pause-frames"]))
    assert len(pause) == 4 and all(k.endswith("ethernet/state/counters/in-mac-pause-frames") for k in pause)
    queue = _leaves(client.get(path=["/qos/interfaces/interface[interface-id=p3]/*/queues/queue/state"]))
    assert sorted(k.rsplit("/", 1)[1] for k in queue) == sorted(
        ["name", "transmit-pkts", "transmit-octets", "dropped-pkts", "max-queue-len", "current-queue-len",
         "current-queue-octets"])
    assert len(_leaves(client.get(path=["/"]))) == 4 * (2 + 8 + 2 + 7)


@pytest.mark.parametrize("path, code", [
    ("/interfaces/interface[name=p9]/state", "NOT_FOUND"),              # in the schema, not on this switch
    ("/system/state/hostname", "UNIMPLEMENTED"),                         # not in this target's schema
    ("/interfaces/interface/state/counters/in-fcs-errors", "UNIMPLEMENTED"),
    ("/interfaces/interface[ifname=p1]/state", "INVALID_ARGUMENT"),      # the list's key is name
    ("/interfaces/interface/state[name=p1]", "INVALID_ARGUMENT"),        # keys on a container
    ("openconfig-x:/interfaces", "UNIMPLEMENTED"),                       # another origin
])
def test_get_bad_paths_get_the_specs_codes(served, path, code):
    """gNMI 3.3.4: absent NOT_FOUND, not implemented UNIMPLEMENTED, malformed INVALID_ARGUMENT."""
    assert _code(lambda: served[2].get(path=[path])).name == code


def test_get_with_another_target_or_encoding_or_set_is_refused(served):
    """A target that is not this switch is NOT_FOUND; ASCII and BYTES are UNIMPLEMENTED, so is Set."""
    client = served[2]
    assert _code(lambda: client.get(path=[COUNTERS], target="leaf1")).name == "NOT_FOUND"
    assert client.get(path=[COUNTERS], target="leaf2")["notification"]
    # pygnmi itself refuses an encoding the target did not list, so this request goes on the stub
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{served[3].port}") as channel:
        stub = gnmi_pb2_grpc.gNMIStub(channel)
        for encoding in (gnmi_pb2.ASCII, gnmi_pb2.BYTES):
            with pytest.raises(grpc.RpcError) as info:
                stub.Get(gnmi_pb2.GetRequest(encoding=encoding), timeout=10)
            assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert _code(lambda: client.set(update=[(COUNTERS + "/in-octets", 1)])).name == "UNIMPLEMENTED"


def _stream(client, subscribe: dict, n: int, timeout: float = 10) -> list[dict]:
    sub = client.subscribe_stream(subscribe=subscribe) if subscribe.get("mode", "stream") == "stream" else \
        client.subscribe2(subscribe=subscribe)
    out = []
    try:
        while len(out) < n:
            out.append(sub.get_update(timeout=timeout))
    finally:
        sub.close()
    return out


def _error(sub, timeout: float = 10) -> str:
    """The status that ended a pygnmi subscription (its reader thread keeps it), or "none"."""
    end = time.monotonic() + timeout
    while sub.error is None and time.monotonic() < end:
        time.sleep(0.02)
    assert not sub.peek()              # nothing came before the error
    return sub.error.code().name if sub.error is not None else "none"


def test_subscribe_bad_paths_and_intervals_get_the_specs_codes(served):
    """3.5.2.4: unimplemented UNIMPLEMENTED, malformed INVALID_ARGUMENT, a sample_interval below
    the target's shortest INVALID_ARGUMENT; an absent path is no error: ONCE sends only its sync."""
    client = served[2]
    cases = [("/system/state", {"mode": "sample"}, "UNIMPLEMENTED"),
             ("/interfaces/interface[id=1]", {"mode": "on_change"}, "INVALID_ARGUMENT"),
             (COUNTERS, {"mode": "sample", "sample_interval": MIN_SAMPLE_NS - 1}, "INVALID_ARGUMENT"),
             (COUNTERS, {"mode": "target_defined", "sample_interval": MIN_SAMPLE_NS}, "INVALID_ARGUMENT")]
    for path, extra, code in cases:
        sub = client.subscribe_stream(subscribe={"subscription": [{"path": path, **extra}], "encoding": "proto"})
        assert _error(sub) == code, (path, extra)
        sub.close()
    once = client.subscribe2(subscribe={"subscription": [{"path": "/interfaces/interface[name=p9]"}], "mode": "once",
                                        "encoding": "proto"})
    assert list(once) == [{"sync_response": True}]
    # a SAMPLE on the shortest interval is taken
    first = _stream(client, {"subscription": [{"path": COUNTERS, "mode": "sample", "sample_interval": MIN_SAMPLE_NS}],
                             "encoding": "proto"}, 1)
    assert len(first[0]["update"]["update"]) == 8


def test_poll_reads_the_counters_at_each_poll(served):
    """POLL: the values at the subscription, then at each poll, here after the network has run
    between them; each answer ends with a sync_response. (On the stub: pygnmi's PollSubscriber
    sends a poll before reading the subscription's own first answer, so its answers lag one.)"""
    import queue

    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    net, lock, _, server = served
    UdpFlow(net.host("h1"), net.host("h3").ip, rate_bps=1_000_000_000, size_bytes=1000, duration_ns=400_000)
    path = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n, key=k) for n, k in (
        ("interfaces", {}), ("interface", {"name": "p1"}), ("state", {}), ("counters", {}), ("out-pkts", {}))])
    requests: queue.Queue = queue.Queue()
    requests.put(gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.POLL, encoding=gnmi_pb2.PROTO, subscription=[gnmi_pb2.Subscription(path=path)])))
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        replies = gnmi_pb2_grpc.gNMIStub(channel).Subscribe(iter(requests.get, None), timeout=30)
        seen = []
        for until in (0, 200_000, 1_000_000):
            _run(net, lock, until)
            if seen:
                requests.put(gnmi_pb2.SubscribeRequest(poll=gnmi_pb2.Poll()))
            update, sync = next(replies), next(replies)
            assert sync.sync_response and update.update.timestamp == EPOCH + until
            seen.append(update.update.update[0].val.uint_val)
        requests.put(None)
    with lock:
        assert seen[-1] == net.switch("leaf2").ports[1].stats.tx_packets == 50     # 400 us of 1 Gb/s, 1000 B
    assert seen[0] == 0 < seen[1] < seen[2]


def test_poll_with_updates_only_sends_what_changed(served):
    """POLL with updates_only (3.5.2.3): a sync_response alone first, then at each poll only the
    leaves that changed since the last answer (h3's port; the idle ports never)."""
    import queue

    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    net, lock, _, server = served
    UdpFlow(net.host("h1"), net.host("h3").ip, rate_bps=1_000_000_000, size_bytes=1000, duration_ns=400_000)
    path = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n, key=k) for n, k in (
        ("interfaces", {}), ("interface", {"name": "*"}), ("state", {}), ("counters", {}), ("out-pkts", {}))])
    requests: queue.Queue = queue.Queue()
    requests.put(gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.POLL, encoding=gnmi_pb2.PROTO, updates_only=True,
        subscription=[gnmi_pb2.Subscription(path=path)])))
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        replies = gnmi_pb2_grpc.gNMIStub(channel).Subscribe(iter(requests.get, None), timeout=30)
        assert next(replies).sync_response
        _run(net, lock, 1_000_000)
        requests.put(gnmi_pb2.SubscribeRequest(poll=gnmi_pb2.Poll()))
        update = next(replies)
        assert [(u.path.elem[1].key["name"], u.val.uint_val) for u in update.update.update] == [("p1", 50)]
        assert next(replies).sync_response
        requests.put(gnmi_pb2.SubscribeRequest(poll=gnmi_pb2.Poll()))     # nothing changed since
        assert next(replies).sync_response
        requests.put(None)


def test_stream_sample_and_on_change_in_simulated_time(served):
    """SAMPLE every 20 ms of simulated time sends its leaf at 0, 20, 40, ... ms; ON_CHANGE sends a
    leaf only when its value changed (the idle ports' counters never again, h3's while the flow
    runs). The network runs 80 ms in steps of 10 ms, each waited out in wall time."""
    net, lock, client, _ = served
    UdpFlow(net.host("h1"), net.host("h3").ip, rate_bps=100_000_000, size_bytes=1000, duration_ns=30_000_000)
    sample = client.subscribe_stream(subscribe={"subscription": [
        {"path": COUNTERS + "/out-pkts", "mode": "sample", "sample_interval": 2 * MIN_SAMPLE_NS}], "encoding": "proto"})
    change = client.subscribe_stream(subscribe={"subscription": [
        {"path": "/interfaces/interface/state/counters/out-pkts", "mode": "on_change"}], "encoding": "proto"})
    try:
        first = sample.get_update(timeout=10)
        initial = change.get_update(timeout=10)
        assert len(initial["update"]["update"]) == 4                  # every port once
        for step in range(1, 9):
            _run(net, lock, step * MIN_SAMPLE_NS)
            time.sleep(0.15)
        samples = [first]
        while sample.peek():
            samples.append(sample.get_update(timeout=1))
        changes = []
        while change.peek():
            changes.append(change.get_update(timeout=1))
    finally:
        sample.close()
        change.close()
    times = [s["update"]["timestamp"] - EPOCH for s in samples]
    assert times == [k * 2 * MIN_SAMPLE_NS for k in range(5)]
    assert all(len(s["update"]["update"]) == 1 for s in samples)
    paths = {u["path"] for c in changes for u in c["update"]["update"]}
    assert paths == {"interfaces/interface[name=p1]/state/counters/out-pkts"}    # only h3's port sent
    values = [c["update"]["update"][0]["val"] for c in changes]
    assert values == sorted(set(values)) and len(values) == 3 and values[-1] == 375   # 30 ms of 100 Mb/s, 1000 B


def test_suppress_redundant_sends_an_idle_leaf_on_heartbeats_only(served):
    """SAMPLE every 10 ms with suppress_redundant on a counter that never changes (idle port p2):
    only the first value, then one per 40 ms heartbeat, at 40 and 80 ms."""
    net, lock, client, _ = served
    sub = client.subscribe_stream(subscribe={"encoding": "proto", "subscription": [
        {"path": "/interfaces/interface[name=p2]/state/counters/out-pkts", "mode": "sample",
         "sample_interval": MIN_SAMPLE_NS, "suppress_redundant": True, "heartbeat_interval": 4 * MIN_SAMPLE_NS}]})
    try:
        got = [sub.get_update(timeout=10)]
        for step in range(1, 9):
            _run(net, lock, step * MIN_SAMPLE_NS)
            time.sleep(0.15)
        while sub.peek():
            got.append(sub.get_update(timeout=1))
    finally:
        sub.close()
    assert [g["update"]["timestamp"] - EPOCH for g in got] == [0, 4 * MIN_SAMPLE_NS, 8 * MIN_SAMPLE_NS]
    assert {g["update"]["update"][0]["val"] for g in got} == {0}


def test_a_stream_ends_with_the_runs_final_values(served):
    """When the server stops (the run has ended) between two samples, a STREAM sends the leaves
    that changed since its last update, stamped with the final instant, and then ends."""
    net, lock, client, server = served
    UdpFlow(net.host("h1"), net.host("h3").ip, rate_bps=1_000_000_000, size_bytes=1000, duration_ns=400_000)
    sub = client.subscribe_stream(subscribe={"encoding": "proto", "subscription": [
        {"path": "/interfaces/interface/state/counters/out-pkts", "mode": "sample", "sample_interval": 10**9}]})
    try:
        first = sub.get_update(timeout=10)
        _run(net, lock, 1_000_000)             # far before the next sample, at 1 s
        server.stop()
        last = sub.get_update(timeout=10)
    finally:
        sub.close()
    assert len(first["update"]["update"]) == 4
    assert last["update"]["timestamp"] == EPOCH + 1_000_000
    assert last["update"]["update"] == [{"path": "interfaces/interface[name=p1]/state/counters/out-pkts", "val": 50}]


def test_subscriptions_past_the_limit_are_refused(served):
    """max_streams subscriptions open at once; the next is RESOURCE_EXHAUSTED, Get still served."""
    client = served[2]
    open_subs = [client.subscribe_stream(subscribe={"subscription": [{"path": COUNTERS, "mode": "on_change"}],
                                                    "encoding": "proto"}) for _ in range(2)]
    try:
        for s in open_subs:
            s.get_update(timeout=10)
        extra = client.subscribe_stream(subscribe={"subscription": [{"path": COUNTERS, "mode": "on_change"}],
                                                   "encoding": "proto"})
        assert _error(extra) == "RESOURCE_EXHAUSTED"
        extra.close()
        assert client.get(path=[COUNTERS])["notification"]
    finally:
        for s in open_subs:
            s.close()


def test_mutual_tls_lets_only_the_cas_clients_in(tmp_path):
    """With the P4Runtime server's TLS files and a CA, pygnmi with a client certificate that CA
    signed reads the counters; one signed by another CA does not get through the handshake."""
    pytest.importorskip("cryptography")
    from dataplane.control.p4runtime.tls import TlsFiles
    from dataplane.testing.certificates import make_pki

    pki = make_pki(tmp_path / "pki")
    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"), seed=1)
    server = GnmiServer(CounterSource(net.switch("leaf1"), threading.RLock(), epoch_ns=EPOCH), "127.0.0.1:0",
                        tls=TlsFiles(pki.server_cert, pki.server_key, pki.ca))
    server.start()
    try:
        with gNMIclient(target=("127.0.0.1", server.port), path_cert=str(pki.client_cert), path_key=str(pki.client_key),
                        path_root=str(pki.ca)) as gc:
            assert _leaves(gc.get(path=[COUNTERS + "/out-pkts"], encoding="proto")) == {
                "interfaces/interface[name=p1]/state/counters/out-pkts": 0}
        # pygnmi waits for the channel to be ready: a refused handshake ends as its timeout
        stranger = gNMIclient(target=("127.0.0.1", server.port), path_cert=str(pki.stranger_cert),
                              path_key=str(pki.stranger_key), path_root=str(pki.ca), gnmi_timeout=1)
        with pytest.raises(grpc.FutureTimeoutError):
            stranger.connect()
    finally:
        server.stop()
