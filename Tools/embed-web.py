#!/usr/bin/env python3
"""Embeds the web app's front end (Web/) in the confab binary: writes
Sources/ConfabWeb/Assets/WebAssetFiles.swift with each file's bytes as base64, so a copied
binary serves the app (SwiftPM's resources would be a directory beside it on Linux).

  Tools/embed-web.py          regenerate (make web)
  Tools/embed-web.py --check  fail if the generated file is not what Web/ holds now (make test)
"""
import base64
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "Web"
TARGET = ROOT / "Sources" / "ConfabWeb" / "Assets" / "WebAssetFiles.swift"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}
# The whole front end stays small enough to load at once on a slow machine (issue: < 150 KB).
LIMIT = 150 * 1024


def generate():
    files = sorted(p for p in SOURCE.rglob("*") if p.is_file() and not p.name.startswith("."))
    total = 0
    lines = [
        "// DO NOT EDIT. Generated from Web/ by Tools/embed-web.py (make web).",
        "// swift-format-ignore-file",
        "",
        "/// The front end's files: path, media type, bytes as base64.",
        "enum WebAssetFiles {",
        "    static let all: [(path: String, type: String, base64: String)] = [",
    ]
    for path in files:
        kind = TYPES.get(path.suffix)
        if kind is None:
            sys.exit(f"{path.relative_to(ROOT)}: no media type for {path.suffix!r} in Tools/embed-web.py")
        data = path.read_bytes()
        total += len(data)
        name = "/" + path.relative_to(SOURCE).as_posix()
        lines.append(f'        ("{name}", "{kind}", "{base64.b64encode(data).decode()}"),')
    lines += ["    ]", "}", ""]
    if total > LIMIT:
        sys.exit(f"Web/ holds {total} bytes: the front end must stay under {LIMIT}")
    return "\n".join(lines), total


def main():
    text, total = generate()
    if "--check" in sys.argv[1:]:
        current = TARGET.read_text() if TARGET.exists() else ""
        if current != text:
            sys.exit(f"{TARGET.relative_to(ROOT)} is not what Web/ holds: run make web and commit it")
        print(f"web assets up to date ({total} bytes)")
        return
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(ROOT)} ({total} bytes from Web/)")


main()
