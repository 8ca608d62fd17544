"""TLS for the P4Runtime server, as simple_switch_grpc offers it: a certificate and key, and with
a CA mutual TLS (every client must present a certificate that CA signed).

The files are checked with the standard library's ``ssl`` first (does the key fit the
certificate, is the CA a certificate), because gRPC takes anything and then reports a bad file
only as "Failed to bind to address"; the credentials themselves are gRPC's own
(``grpc.ssl_server_credentials``).
"""
from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc


@dataclass(frozen=True)
class TlsFiles:
    """PEM files: the server's certificate (chain) and key, and the CA of its clients (mutual TLS)."""

    cert: Path
    key: Path
    ca: Path | None = None

    def check(self) -> None:
        """ValueError naming the file that is unreadable or does not fit."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(str(self.cert), str(self.key))
        except ssl.SSLError as err:        # an OSError too: first
            raise ValueError(f"--tls-cert {self.cert} and --tls-key {self.key} are not a PEM certificate "
                             f"and its private key ({err.reason or err})") from None
        except OSError as err:
            raise ValueError(f"cannot read --tls-cert {self.cert} or --tls-key {self.key}: "
                             f"{err.strerror or err}") from None
        if self.ca is not None:
            try:
                context.load_verify_locations(cafile=str(self.ca))
            except ssl.SSLError as err:
                raise ValueError(f"--tls-ca {self.ca} holds no PEM certificate ({err.reason or err})") from None
            except OSError as err:
                raise ValueError(f"cannot read --tls-ca {self.ca}: {err.strerror or err}") from None

    def credentials(self) -> grpc.ServerCredentials:
        """gRPC's server credentials for these files (checked first)."""
        self.check()
        ca = self.ca.read_bytes() if self.ca is not None else None
        return grpc.ssl_server_credentials([(self.key.read_bytes(), self.cert.read_bytes())],
                                           root_certificates=ca, require_client_auth=ca is not None)
