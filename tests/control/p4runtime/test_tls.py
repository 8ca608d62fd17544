"""TLS as simple_switch_grpc offers it, through grpcio's own credentials: with a certificate and
key the server speaks only TLS; with a CA too (mutual TLS) only to clients presenting a
certificate that CA signed. Certificates are made at test time."""
from __future__ import annotations

import re
import signal
import subprocess
import sys

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
pytest.importorskip("cryptography")
from click.testing import CliRunner  # noqa: E402
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc  # noqa: E402

from dataplane.cli import main  # noqa: E402
from dataplane.control.p4runtime.tls import TlsFiles  # noqa: E402
from dataplane.testing.certificates import make_pki  # noqa: E402


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"))


def capabilities(port: int, credentials=None) -> grpc.StatusCode:
    """OK if the server answers Capabilities over this channel, else the call's status."""
    target = f"127.0.0.1:{port}"
    channel = grpc.secure_channel(target, credentials) if credentials is not None else grpc.insecure_channel(target)
    try:
        p4runtime_pb2_grpc.P4RuntimeStub(channel).Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=5)
        return grpc.StatusCode.OK
    except grpc.RpcError as err:
        return err.code()
    finally:
        channel.close()


def client_credentials(pki, who: str | None = "client"):
    if who is None:
        return grpc.ssl_channel_credentials(pki.ca.read_bytes())
    cert, key = getattr(pki, f"{who}_cert"), getattr(pki, f"{who}_key")
    return grpc.ssl_channel_credentials(pki.ca.read_bytes(), key.read_bytes(), cert.read_bytes())


def test_a_tls_server_speaks_only_tls(start_server, pki):
    """Certificate and key, no CA: a client that trusts the CA is served (no client certificate
    needed); a plaintext client is not."""
    server = start_server(tls=TlsFiles(pki.server_cert, pki.server_key))
    assert capabilities(server.port, client_credentials(pki, None)) == grpc.StatusCode.OK
    assert capabilities(server.port) == grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_takes_only_clients_its_ca_signed(start_server, pki):
    """With --tls-ca: a client certificate from that CA is served; none, or one from another CA,
    is refused in the handshake; so is plaintext."""
    server = start_server(tls=TlsFiles(pki.server_cert, pki.server_key, pki.ca))
    assert capabilities(server.port, client_credentials(pki, "client")) == grpc.StatusCode.OK
    assert capabilities(server.port, client_credentials(pki, None)) == grpc.StatusCode.UNAVAILABLE
    assert capabilities(server.port, client_credentials(pki, "stranger")) == grpc.StatusCode.UNAVAILABLE
    assert capabilities(server.port) == grpc.StatusCode.UNAVAILABLE


def test_serve_over_mutual_tls_from_the_command_line(pki):
    """``dataplane serve --tls-cert --tls-key --tls-ca``: says TLS, serves the controller with
    the right certificate, refuses one without."""
    p = subprocess.Popen([sys.executable, "-m", "dataplane", "serve", "--grpc-addr", "127.0.0.1:0",
                          "--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key), "--tls-ca", str(pki.ca)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        m = re.search(r"on 127\.0\.0\.1:(\d+) \(P4Runtime, TLS\)", line)
        assert m, line + p.stderr.read()
        port = int(m.group(1))
        assert capabilities(port, client_credentials(pki, "client")) == grpc.StatusCode.OK
        assert capabilities(port, client_credentials(pki, None)) == grpc.StatusCode.UNAVAILABLE
    finally:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=10)
    assert p.returncode == 0


def test_bad_tls_options_are_clear_errors(pki, tmp_path):
    """A key that is not the certificate's, a CA file with no certificate, a certificate
    without its key, a CA without a certificate: exit status 2 naming what is wrong."""
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    cases = [
        (["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.client_key)],
         "are not a PEM certificate and its private key"),
        (["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key), "--tls-ca", str(junk)],
         f"--tls-ca {junk} holds no PEM certificate"),
        (["--tls-cert", str(pki.server_cert)], "--tls-cert and --tls-key go together"),
        (["--tls-ca", str(pki.ca)], "--tls-ca needs --tls-cert and --tls-key"),
    ]
    for args, message in cases:
        r = CliRunner().invoke(main, ["serve", "--grpc-addr", "192.0.2.1:0", *args])
        assert r.exit_code == 2 and message in r.output, r.output
