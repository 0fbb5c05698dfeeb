#!/usr/bin/env python3
"""The key-wraps vector of Protocol.md §19.1, computed independently of the Swift code.

Needs PyNaCl (libsodium's bindings). Run `python3 Tests/Vectors/key_wraps.py`; it prints the
inputs and the ephemeral public key and wraps that KeyWrapsTests.swift holds as constants.

    s_i    = X25519(e, X25519-public(r_i))
    w_i    = BLAKE2b-256(key = s_i, "confab/wrap/v1" ‖ 0x00 ‖ conversation_id[16] ‖ author[32]
                         ‖ u64be(seq) ‖ E[32] ‖ r_i[32])
    wrap_i = K ⊕ w_i
"""

import hashlib
import struct

from nacl import bindings as sodium

DOMAIN = b"confab/wrap/v1\x00"


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def mask(shared: bytes, context: bytes, ephemeral: bytes, recipient: bytes) -> bytes:
    message = DOMAIN + context + ephemeral + recipient
    w = hashlib.blake2b(message, digest_size=32, key=shared).digest()
    assert w == sodium.crypto_generichash_blake2b_salt_personal(message, digest_size=32, key=shared)
    return w


def main() -> None:
    # Inputs.
    e = bytes(range(0x01, 0x21))  # the X25519 secret as-is (crypto_scalarmult clamps it)
    E = sodium.crypto_scalarmult_base(e)
    recipients = [sodium.crypto_sign_seed_keypair(bytes([seed]) * 32) for seed in (0x11, 0x22)]
    K = bytes([0x42]) * 32
    conversation_id = bytes([0xC0]) * 16
    author, _ = sodium.crypto_sign_seed_keypair(bytes([0x33]) * 32)
    seq = 7
    context = conversation_id + author + struct.pack(">Q", seq)
    assert len(context) == 56

    # The writer's side.
    wraps = b""
    for pk, _ in recipients:
        s = sodium.crypto_scalarmult(e, sodium.crypto_sign_ed25519_pk_to_curve25519(pk))
        wraps += xor(K, mask(s, context, E, pk))

    # Each recipient's side, from its Ed25519 secret key alone.
    for i, (pk, sk) in enumerate(recipients):
        s = sodium.crypto_scalarmult(sodium.crypto_sign_ed25519_sk_to_curve25519(sk), E)
        assert xor(wraps[32 * i : 32 * (i + 1)], mask(s, context, E, pk)) == K

    print("e          ", e.hex())
    for i, (pk, _) in enumerate(recipients):
        print(f"r_{i + 1}        ", pk.hex())
    print("K          ", K.hex())
    print("author     ", author.hex())
    print("context    ", context.hex())
    print("E          ", E.hex())
    print("wraps      ", wraps.hex())


if __name__ == "__main__":
    main()
