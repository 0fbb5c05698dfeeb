#!/usr/bin/env python3
"""The link vector of Protocol.md §20.10, computed independently of the Swift code.

Needs the `cryptography` package (OpenSSL's Argon2id, Ed25519 and X25519; PyNaCl is not
required). Run `python3 Tests/Vectors/link.py`; it prints the fields as §20.10 writes them,
which DocumentedLinkVectorTests checks against the code.

    secrets  = Argon2id(password = the 10 canonical symbols, salt = "confab/link/v1" ‖ 00 00,
                        iterations 2, memory 65,536 KiB, lanes 1, 64 bytes)
    K_link   = secrets[0..<32]
    B        = the Ed25519 key pair of seed secrets[32..<64]
    tag      = HMAC-SHA-512(K_link, "confab/network-tag/v1")[0..<8]
    H        = sha256(X25519(a_sk, b_pk))
    digest   = BLAKE2b-256("confab/link-words/v1" ‖ 0x00 ‖ H ‖ D ‖ B_pk)
    words    = list[digest[0]] … list[digest[4]]
"""

import hashlib
import hmac
import re
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

CODE = "K7Q2M9XH4T"
SALT = b"confab/link/v1\x00\x00"
WORDS_DOMAIN = b"confab/link-words/v1\x00"


def raw(public_key) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def word_list() -> list:
    """The 256 words as Protocol.md §20.10 lists them (the table after "The word list")."""
    text = (Path(__file__).resolve().parents[2] / "Protocol.md").read_text()
    start = text.index("The word list")
    block = text[start:].split("```")[1]
    words = re.findall(r"[a-z]+", block)
    assert len(words) == 256 and len(set(words)) == 256, len(words)
    return words


def hex_lines(name: str, data: bytes) -> str:
    text = data.hex()
    pad = " " * (len(name) + 3)
    chunks = [text[i : i + 64] for i in range(0, len(text), 64)]
    return f"{name} = " + ("\n" + pad).join(chunks)


def main() -> None:
    secrets = Argon2id(salt=SALT, length=64, iterations=2, lanes=1, memory_cost=65536).derive(CODE.encode())
    k_link = secrets[:32]
    offer = Ed25519PrivateKey.from_private_bytes(secrets[32:])
    b_pk = raw(offer.public_key())
    tag = hmac.new(k_link, b"confab/network-tag/v1", hashlib.sha512).digest()[:8]
    device = raw(Ed25519PrivateKey.from_private_bytes(bytes([0x72]) * 32).public_key())
    a_sk = X25519PrivateKey.from_private_bytes(bytes([0x73]) * 32)
    b_sk = X25519PrivateKey.from_private_bytes(bytes([0x74]) * 32)
    ab = a_sk.exchange(b_sk.public_key())
    assert ab == b_sk.exchange(a_sk.public_key())
    h = hashlib.sha256(ab).digest()
    digest = hashlib.blake2b(WORDS_DOMAIN + h + device + b_pk, digest_size=32).digest()
    words = word_list()
    for name, value in [
        ("K_link", k_link),
        ("B_seed", secrets[32:]),
        ("B_pk", b_pk),
        ("link_tag", tag),
        ("D_new", device),
        ("H_link", h),
        ("words_digest", digest),
    ]:
        print(hex_lines(name, value))
    print("words        = " + " ".join(words[b] for b in digest[:5]))


if __name__ == "__main__":
    main()
