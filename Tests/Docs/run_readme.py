#!/usr/bin/env python3
"""Runs the shell blocks of a Markdown file (```sh, ```bash or ```shell) as shown, in order,
in one scratch directory: CONFAB_HOME (the data directory) and HOME are in it, and `confab`
on the PATH is the binary CONFAB names (default .build/debug/confab). A block fails when any
command in it fails (bash -e -o pipefail); the first failing block fails the check, with
its line and output.

A block that must not run here (`make run`, an install, something that needs a second
machine or runs until stopped) is marked by an HTML comment on the line before its fence,
with the reason:

    <!-- readme-check: skip: runs the full-screen chat until you quit it -->

A block that is not marked and starts a node, a chat or `confab doctor` (which would send
beacons on this machine's interfaces) is refused: mark it.

    CONFAB=.build/debug/confab python3 Tests/Docs/run_readme.py README.md
    python3 Tests/Docs/run_readme.py --self-test
"""

import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```\s*(\w*)\s*$")
SKIP = re.compile(r"^<!--\s*readme-check:\s*skip:\s*(\S.*?)\s*-->$")
MARKER = re.compile(r"<!--\s*readme-check")
SHELLS = {"sh", "bash", "shell"}
# What would start a node (which finds peers on this machine's LAN) or wait on one.
NETWORKED = re.compile(r"(^|[;&|(]\s*|\bthen\s+|\bdo\s+)confab(\s+--data\s+\S+)?\s*($|[;&|#)]|(up|relay|chat|watch|doctor)\b)")


def blocks(path):
    """(line, language, text, skip reason or None) of every fenced block."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    result = []
    index = 0
    previous = ""
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match and match.group(1):
            start = index
            language = match.group(1)
            index += 1
            body = []
            while index < len(lines) and not lines[index].startswith("```"):
                body.append(lines[index])
                index += 1
            if MARKER.search(previous) and not SKIP.match(previous.strip()):
                raise SystemExit(f"{path}:{start}: malformed marker {previous.strip()!r}: "
                                 "write <!-- readme-check: skip: REASON -->")
            skip = SKIP.match(previous.strip())
            result.append((start + 1, language, "\n".join(body), skip.group(1) if skip else None))
            previous = ""
        elif lines[index].strip():
            previous = lines[index]
        index += 1
    return result


def commands(text):
    return [line for line in text.split("\n") if line.strip() and not line.strip().startswith("#")]


def run(path, confab):
    confab = os.path.abspath(confab)
    if not os.access(confab, os.X_OK):
        print(f"run_readme: no confab binary at {confab}: build it (swift build --product confab) or set CONFAB")
        return 1
    found = [block for block in blocks(path) if block[1] in SHELLS]
    ran = skipped = 0
    with tempfile.TemporaryDirectory(prefix="confab-readme-") as scratch:
        binaries = os.path.join(scratch, "bin")
        os.makedirs(binaries)
        os.makedirs(os.path.join(scratch, "home"))
        os.symlink(confab, os.path.join(binaries, "confab"))
        environment = {
            "PATH": binaries + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.path.join(scratch, "home"),
            "CONFAB_HOME": os.path.join(scratch, "data"),
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            "TERM": "dumb",
        }
        for line, _, text, reason in found:
            if reason is not None:
                skipped += 1
                print(f"  skipped {path}:{line}: {reason}")
                continue
            for command in commands(text):
                if NETWORKED.search(command.split(" #")[0]):
                    print(f"run_readme: {path}:{line}: {command.strip()!r} starts a node, a chat or the doctor, "
                          "which would reach this machine's network: mark the block "
                          "<!-- readme-check: skip: REASON --> or show another command")
                    return 1
            try:
                result = subprocess.run(
                    ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", text],
                    cwd=scratch, env=environment, stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120, text=True)
            except subprocess.TimeoutExpired:
                print(f"run_readme: {path}:{line}: the block did not finish in 120 s")
                return 1
            if result.returncode != 0:
                print(f"run_readme: {path}:{line}: the block failed (exit {result.returncode}):")
                print("\n".join("    " + command for command in text.split("\n")))
                print("  its output:")
                print("\n".join("    " + output for output in result.stdout.rstrip().split("\n")))
                print("Fix the command in the document, or mark the block <!-- readme-check: skip: REASON --> "
                      "if it cannot run without a peer.")
                return 1
            ran += 1
    print(f"run_readme: {path}: {ran} shell blocks ran as shown, {skipped} skipped (marked)")
    return 0


def self_test(confab):
    """A failing command, an unmarked node and a malformed marker are each caught."""
    cases = {
        "passes": ("<!-- readme-check: skip: a second machine -->\n```sh\nfalse\n```\n"
                   "```sh\nconfab --version   # the release\necho ok | cat\n```\n", 0),
        "fails": ("```sh\nconfab --version\n```\n\n```sh\nconfab no-such-command\n```\n", 1),
        "refuses a node": ("```sh\nconfab up --no-discovery\n```\n", 1),
        "refuses the chat": ("```sh\nconfab      # the chat\n```\n", 1),
    }
    with tempfile.TemporaryDirectory() as directory:
        for name, (text, expected) in cases.items():
            document = os.path.join(directory, name.replace(" ", "-") + ".md")
            with open(document, "w", encoding="utf-8") as handle:
                handle.write(text)
            print(f"self-test, {name}:")
            status = run(document, confab)
            assert status == expected, f"run_readme self-test '{name}': exit {status}, expected {expected}"
        malformed = os.path.join(directory, "malformed.md")
        with open(malformed, "w", encoding="utf-8") as handle:
            handle.write("<!-- readme-check: skipp -->\n```sh\ntrue\n```\n")
        try:
            blocks(malformed)
            raise AssertionError("run_readme self-test: a malformed marker was not refused")
        except SystemExit:
            pass
    print("run_readme: self-test passed (a failing block, an unmarked node and a malformed marker are caught)")


def main(arguments):
    confab = os.environ.get("CONFAB", ".build/debug/confab")
    if arguments == ["--self-test"]:
        self_test(confab)
        return 0
    if len(arguments) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    return run(arguments[0], confab)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
