"""What several fuzz modules share that is not a case (a helper two test modules share lives in a module of
its own: importing a test module collects its tests twice): a closed loopback port, and real certificate and
key material (made once per session with ``cryptography``)."""
from __future__ import annotations

import datetime
import functools

from .loopback import closed_port  # noqa: F401 - the fuzz modules take it from here with the material


@functools.cache
def material() -> dict[str, bytes]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fuzz CA")])

    def certificate(key, name: str, *, days: tuple[int, int] = (-1, 2), issuer_key=ca_key, ca: bool = False):
        builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
                   .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now + datetime.timedelta(days=days[0]))
                   .not_valid_after(now + datetime.timedelta(days=days[1])))
        if ca:
            builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        return builder.sign(issuer_key, hashes.SHA256())

    client_key, other_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    pem = serialization.Encoding.PEM
    pkcs8 = serialization.PrivateFormat.PKCS8

    def key_bytes(key, encoding=pem, encryption=None) -> bytes:
        return key.private_bytes(encoding, pkcs8, encryption or serialization.NoEncryption())

    client = certificate(client_key, "fuzz-client")
    return {
        "ca.pem": certificate(ca_key, "fuzz CA", ca=True).public_bytes(pem),
        "client.pem": client.public_bytes(pem),
        "client.key": key_bytes(client_key),
        "other.key": key_bytes(other_key),
        "encrypted.key": key_bytes(client_key, encryption=serialization.BestAvailableEncryption(b"fuzz-pass-1")),
        "expired.pem": certificate(client_key, "fuzz-client", days=(-30, -1)).public_bytes(pem),
        "future.pem": certificate(client_key, "fuzz-client", days=(30, 60)).public_bytes(pem),
        "client.der": client.public_bytes(serialization.Encoding.DER),
        "client-key.der": key_bytes(client_key, serialization.Encoding.DER),
        "damaged.pem": b"-----BEGIN CERTIFICATE-----\nMIIBbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n",
        "damaged.key": b"-----BEGIN PRIVATE KEY-----\nMIIBbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
        "text.pem": b"this is the certificate, honest\n",
        "empty.pem": b"",
    }


def key_lines() -> tuple[str, ...]:
    """The base64 lines of every private key here: none may be printed."""
    found = []
    for name in ("client.key", "other.key", "encrypted.key"):
        found += [line for line in material()[name].decode().splitlines() if line and not line.startswith("-----")]
    return tuple(found)


# (tls_cert_file, tls_key_file, tls_trust_certs, what the message must name)
