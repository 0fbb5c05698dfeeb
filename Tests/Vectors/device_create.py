#!/usr/bin/env python3
"""The device-create vector of Protocol.md §20.11, checked from the document alone.

Needs the `cryptography` package (OpenSSL's Ed25519). Reads the vector's fields out of
Protocol.md, derives from the seeds, the key and the nonce everything that is not random by
design (the sealed keys and names are given), encodes the entry as §4.1 says, and compares
it byte for byte with the document. Run `python3 Tests/Vectors/device_create.py`; it exits 1
and says what differs when the text and the bytes disagree.

    conversation_id = BLAKE2b-128("confab/conversation-id/v1" ‖ 0x00 ‖ D2 ‖ nonce)     (§2)
    key_commitment  = BLAKE2b-256("confab/conversation-key/v1" ‖ 0x00 ‖ id ‖ key)       (§4.5)
    signature       = Ed25519-sign(D2, "confab/entry/v1" ‖ 0x00 ‖ content)             (§4.3)
    hash            = BLAKE2b-256(content)                                              (§4.4)
"""

import hashlib
import pathlib
import re
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

PROTOCOL = pathlib.Path(__file__).resolve().parents[2] / "Protocol.md"


def ed25519(seed_byte: int):
    key = Ed25519PrivateKey.from_private_bytes(bytes([seed_byte]) * 32)
    return key, key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number: int, value) -> bytes:
    """A protobuf field: bytes as length-delimited (wire type 2), an int as a varint (0).
    Proto3 leaves a default value out."""
    if isinstance(value, int):
        return b"" if value == 0 else varint(number << 3) + varint(value)
    return b"" if not value else varint(number << 3 | 2) + varint(len(value)) + value


def documented() -> dict:
    text = PROTOCOL.read_text()
    section = text[text.index("### 20.11") : text.index("### 20.12")]
    fields, name = {}, None
    for line in section.splitlines():
        match = re.match(r"^(device create[^=]*?) = ([0-9a-f]+)$", line)
        if match:
            name = match.group(1)
            fields[name] = match.group(2)
        elif name and re.match(r"^ +[0-9a-f]+$", line):
            fields[name] += line.strip()
        else:
            name = None
    return {key: bytes.fromhex(value) for key, value in fields.items()}


def main() -> int:
    doc = documented()
    _, person = ed25519(0x51)
    phone, phone_key = ed25519(0x53)
    _, member = ed25519(0xB2)
    nonce, key = bytes([0x31]) * 16, bytes([0x5B]) * 32
    conversation = hashlib.blake2b(
        b"confab/conversation-id/v1\x00" + phone_key + nonce, digest_size=16).digest()
    commitment = hashlib.blake2b(
        b"confab/conversation-key/v1\x00" + conversation + key, digest_size=32).digest()
    participants = [
        (person, doc["device create sealed key to P"]),
        (member, doc["device create sealed key to member"]),
    ]
    create = b"".join(field(1, field(1, who) + field(2, sealed)) for who, sealed in participants)
    create += field(3, nonce) + field(4, commitment) + field(5, doc["device create sealed names"])
    content = (field(1, conversation) + field(2, phone_key) + field(3, 1) + field(5, 1_800_000_240_000)
               + field(16, create))
    signature = phone.sign(b"confab/entry/v1\x00" + content)
    expected = {
        "device create member key": member,
        "device create nonce": nonce,
        "device create key": key,
        "device create conversation_id": conversation,
        "device create key_commitment": commitment,
        "device create content": content,
        "device create signature": signature,
        "device create hash": hashlib.blake2b(content, digest_size=32).digest(),
        "device create": field(1, content) + field(2, signature),
    }
    wrong = [name for name, value in expected.items() if doc.get(name) != value]
    for name in wrong:
        print(f"Protocol.md §20.11 {name}: the document says {doc.get(name, b'').hex() or 'nothing'}, "
              f"the text's rules give {expected[name].hex()}")
    if not wrong:
        print(f"Protocol.md §20.11: the device create vector's {len(expected)} values follow from the text")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
