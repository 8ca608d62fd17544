"""Throwaway TLS certificates for this project's tests of the P4Runtime server's TLS.

``make_pki(folder)`` writes a CA, a server certificate for 127.0.0.1 and localhost signed by
it, a client certificate signed by it, and a client certificate signed by another CA (one the
server must refuse), all PEM, with P-256 keys, valid for a day. Made at test time with the
``cryptography`` package (the test extra), so no key ever sits in the repository.
"""
from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pki:
    """The PEM files ``make_pki`` wrote."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    stranger_cert: Path      # a client certificate signed by another CA
    stranger_key: Path


def make_pki(folder: Path) -> Pki:
    """Write the files of a ``Pki`` into ``folder``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

    def certificate(subject: str, key, issuer: str, issuer_key, *, ca: bool = False, usage=None, names=()):
        builder = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer))
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if usage is not None:
            builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(list(names)), critical=False)
        return builder.sign(issuer_key, hashes.SHA256())

    def write(path: Path, cert=None, key=None) -> Path:
        if cert is not None:
            path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        else:
            path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        return path

    folder.mkdir(parents=True, exist_ok=True)
    keys = {k: ec.generate_private_key(ec.SECP256R1()) for k in ("ca", "server", "client", "other", "stranger")}
    ca = certificate("test CA", keys["ca"], "test CA", keys["ca"], ca=True)
    server = certificate("localhost", keys["server"], "test CA", keys["ca"], usage=ExtendedKeyUsageOID.SERVER_AUTH,
                         names=(x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))))
    client = certificate("controller", keys["client"], "test CA", keys["ca"], usage=ExtendedKeyUsageOID.CLIENT_AUTH)
    stranger = certificate("stranger", keys["stranger"], "another CA", keys["other"],
                           usage=ExtendedKeyUsageOID.CLIENT_AUTH)
    return Pki(ca=write(folder / "ca.pem", ca),
               server_cert=write(folder / "server.pem", server), server_key=write(folder / "server.key", key=keys["server"]),
               client_cert=write(folder / "client.pem", client), client_key=write(folder / "client.key", key=keys["client"]),
               stranger_cert=write(folder / "stranger.pem", stranger),
               stranger_key=write(folder / "stranger.key", key=keys["stranger"]))
