#!/usr/bin/env python3
"""The device-list vector of Protocol.md §20.8, computed independently of the Swift code.

Needs the `cryptography` package (OpenSSL's Ed25519 and X25519; PyNaCl is not required).
Run `python3 Tests/Vectors/device_list.py`; it prints the fields as §20.8 writes them, which
DocumentedDeviceVectorTests checks against the code.

    signature = Ed25519-sign(P, "confab/device/v1" ‖ 0x00 ‖ content)
    hash      = BLAKE2b-256(content)
    s_i       = X25519(x, X25519-public(d_i))
    w_i       = BLAKE2b-256(key = s_i, "confab/device-key-wrap/v1" ‖ 0x00 ‖ person[32] ‖ u64be(seq)
                            ‖ ephemeral[32] ‖ d_i[32])
    wrap_i    = e ⊕ w_i
"""

import hashlib
import struct

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

SIGNATURE_DOMAIN = b"confab/device/v1\x00"
WRAP_DOMAIN = b"confab/device-key-wrap/v1\x00"
P25519 = 2**255 - 19


def raw(public_key) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def ed25519(seed_byte: int):
    key = Ed25519PrivateKey.from_private_bytes(bytes([seed_byte]) * 32)
    return key, raw(key.public_key())


def x25519_public(secret: bytes) -> bytes:
    return raw(X25519PrivateKey.from_private_bytes(secret).public_key())


def ed25519_pk_to_x25519(pk: bytes) -> bytes:
    """u = (1 + y) / (1 − y) mod p: what crypto_sign_ed25519_pk_to_curve25519 computes."""
    y = int.from_bytes(pk, "little") & ((1 << 255) - 1)
    u = (1 + y) * pow(1 - y, P25519 - 2, P25519) % P25519
    return u.to_bytes(32, "little")


def ed25519_sk_to_x25519(seed: bytes) -> bytes:
    """The first half of SHA-512(seed), clamped: crypto_sign_ed25519_sk_to_curve25519."""
    h = bytearray(hashlib.sha512(seed).digest()[:32])
    h[0] &= 248
    h[31] &= 127
    h[31] |= 64
    return bytes(h)


def varint(n: int) -> bytes:
    out = b""
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def field_bytes(number: int, value: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(value)) + value if value else b""


def field_varint(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value) if value else b""


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def wraps(e: bytes, x: bytes, person: bytes, seq: int, devices: list[bytes]) -> tuple[bytes, bytes]:
    ephemeral = x25519_public(x)
    out = b""
    for d in devices:
        s = X25519PrivateKey.from_private_bytes(x).exchange(X25519PublicKey.from_public_bytes(ed25519_pk_to_x25519(d)))
        message = WRAP_DOMAIN + person + struct.pack(">Q", seq) + ephemeral + d
        out += xor(e, hashlib.blake2b(message, digest_size=32, key=s).digest())
    return ephemeral, out


def open_wrap(wrap: bytes, device_seed: bytes, person: bytes, seq: int, ephemeral: bytes, device: bytes) -> bytes:
    secret = X25519PrivateKey.from_private_bytes(ed25519_sk_to_x25519(device_seed))
    s = secret.exchange(X25519PublicKey.from_public_bytes(ephemeral))
    message = WRAP_DOMAIN + person + struct.pack(">Q", seq) + ephemeral + device
    return xor(wrap, hashlib.blake2b(message, digest_size=32, key=s).digest())


def main() -> None:
    p_key, p = ed25519(0x51)
    _, d1 = ed25519(0x52)
    _, d2 = ed25519(0x53)
    seeds = {p: bytes([0x51]) * 32, d1: bytes([0x52]) * 32, d2: bytes([0x53]) * 32}
    e1, e2 = bytes([0x54]) * 32, bytes([0x55]) * 32
    ephemerals = [bytes([b]) * 32 for b in (0x61, 0x62, 0x63, 0x64)]
    timestamps = [1_800_000_000_000, 1_800_000_060_000, 1_800_000_120_000, 1_800_000_180_000]
    conversation = bytes.fromhex("1fdc2412de905f73dd429f8f5ca8c25f")

    # (change field, e, devices after the entry)
    changes = [
        (field_bytes(16, field_bytes(1, d1) + field_bytes(2, b"laptop")), e1, [p, d1]),
        (field_bytes(16, field_bytes(1, d2) + field_bytes(2, b"phone")), e1, [p, d1, d2]),
        (
            field_bytes(17, field_bytes(1, d1) + field_bytes(2, field_bytes(1, conversation) + field_varint(2, 3))),
            e2,
            [p, d2],
        ),
        # A rename keeps E2 and wraps it again to the same devices.
        (field_bytes(18, field_bytes(1, d2) + field_bytes(2, "work phone".encode())), e2, [p, d2]),
    ]

    print(f"P  = {p.hex()}")
    print(f"D1 = {d1.hex()}")
    print(f"D2 = {d2.hex()}")
    print(f"E1 = {x25519_public(e1).hex()}")
    print(f"E2 = {x25519_public(e2).hex()}")
    previous = b""
    for index, (change, e, devices) in enumerate(changes):
        seq = index + 1
        ephemeral, wrapped = wraps(e, ephemerals[index], p, seq, devices)
        keys = field_bytes(1, x25519_public(e)) + field_bytes(2, ephemeral) + field_bytes(3, wrapped)
        content = (
            field_bytes(1, p)
            + field_varint(2, seq)
            + field_bytes(3, previous)
            + field_varint(4, timestamps[index])
            + field_bytes(5, keys)
            + change
        )
        signature = p_key.sign(SIGNATURE_DOMAIN + content)
        p_key.public_key().verify(signature, SIGNATURE_DOMAIN + content)
        digest = hashlib.blake2b(content, digest_size=32).digest()
        encoded = field_bytes(1, content) + field_bytes(2, signature)
        # Each device after the entry opens e from its own wrap and its Ed25519 seed alone.
        for i, d in enumerate(devices):
            assert open_wrap(wrapped[32 * i : 32 * (i + 1)], seeds[d], p, seq, ephemeral, d) == e
        print(f"\nentry {seq}")
        for name, value in [
            ("ephemeral", ephemeral),
            ("wraps", wrapped),
            ("content", content),
            ("signature", signature),
            ("hash", digest),
            ("encoded", encoded),
        ]:
            text = value.hex()
            lines = [text[i : i + 64] for i in range(0, len(text), 64)]
            print(f"{name:<9} = " + ("\n" + " " * 12).join(lines))
        previous = digest
    # The removed laptop has no wrap in the last entry: none of them opens e2 for it.
    for i in range(len(changes[2][2])):
        ephemeral, wrapped = wraps(e2, ephemerals[2], p, 3, changes[2][2])
        assert open_wrap(wrapped[32 * i : 32 * (i + 1)], seeds[d1], p, 3, ephemeral, d1) != e2


if __name__ == "__main__":
    main()
