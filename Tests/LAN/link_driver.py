"""Drives one interactive side of a device link inside a namespace (Tests/LAN/first-run-link-test.sh).

    link_driver.py offer NS CONFAB DATA DIR        `devices link`; writes its code to DIR/code
    link_driver.py join NS CONFAB DATA DIR CODE    `init --link CODE --name laptop`, no address

Each side writes the five words it shows to DIR/<side>.words and answers the question only
once the other side's words are there: y when they are the same, n otherwise, as a person
comparing the two screens would. Prints what the command printed; exits with its status,
or 1 when it asked nothing within 90 s.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time


def write(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def main():
    side, namespace, confab, data, folder = sys.argv[1:6]
    other = "join" if side == "offer" else "offer"
    command = ["devices", "link", "--no-qr", "--timeout", "120"]
    if side == "join":
        command = ["init", "--link", sys.argv[6], "--name", "laptop"]
    process = subprocess.Popen(
        ["ip", "netns", "exec", namespace, confab, "--data", data] + command, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1"))
    output = []

    def stop(_signal, _frame):
        # The script ends a side by its pid: the command inside the namespace goes with it.
        process.kill()
        process.wait()
        sys.exit(1)

    signal.signal(signal.SIGTERM, stop)

    def read():
        for chunk in iter(lambda: os.read(process.stdout.fileno(), 4096), b""):
            output.append(chunk.decode("utf-8", "replace"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.time() + 90
    answered = False
    while process.poll() is None and time.time() < deadline:
        text = "".join(output)
        code = re.search(r"Link code: ([0-9A-Z]{5}-[0-9A-Z]{5})", text)
        if side == "offer" and code and not os.path.exists(os.path.join(folder, "code")):
            write(os.path.join(folder, "code"), code.group(1))
        words = re.search(r"^Words: (.+)$", text, re.MULTILINE)
        if words and "[y/N]" in text and not answered:
            write(os.path.join(folder, side + ".words"), words.group(1).strip())
            theirs = os.path.join(folder, other + ".words")
            if os.path.exists(theirs):
                with open(theirs) as f:
                    same = f.read() == words.group(1).strip()
                process.stdin.write(b"y\n" if same else b"n\n")
                process.stdin.flush()
                answered = True
        time.sleep(0.1)
    if process.poll() is None:
        process.kill()
    status = process.wait()
    reader.join(timeout=5)
    sys.stdout.write("".join(output))
    sys.exit(status if answered or status != 0 else 1)


if __name__ == "__main__":
    main()
