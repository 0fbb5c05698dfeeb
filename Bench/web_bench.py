"""The web app, measured (run by Bench/web.sh; see there and docs/benchmarks.md).

  web_bench.py drive …   on the LAN's third host: drives a Chromium on each node's host
                         through chromedriver, as Tests/Web/web_test.py does, and prints
                         the table
  web_bench.py http …    inside a node's namespace: the operations' own times over HTTP
  web_bench.py tabs …    inside a node's namespace: 100 event sockets and one that never
                         reads, a flood of messages, memory, frame sizes, chat latency
  web_bench.py socket …  inside a node's namespace: one event socket, each message's time
  web_bench.py poster …  inside a node's namespace: `send` over HTTP for each line of stdin

Every browser figure is measured in the page (performance.now(), timeOrigin + now() where
two pages are compared: both browsers run on this machine's clock); every floor beside it
is measured in the same run, in turns with it.
"""
import argparse
import base64
import http.client
import json
import multiprocessing
import os
import queue
import selectors
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PYTHON = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))




def median(values):
    return statistics.median(values) if values else float("nan")


def pct(values, q):
    """The q-quantile (nearest rank) of values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def spread(values):
    return f"{median(values):7.1f} ms (min {min(values):.1f}, max {max(values):.1f}, n={len(values)})"


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kib(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


# ---- where a host's processes run, and how they end ------------------------------------

def end(*children, timeout=10):
    """Ends child processes: SIGTERM to all at once, then SIGKILL to any still there after
    `timeout` seconds."""
    for child in children:
        if child.poll() is None:
            child.terminate()
    for child in children:
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


# PIN=1 (web.sh): each node's host keeps to one core of its own (`taskset`), as two machines
# would, instead of the two nodes and the two browsers sharing both cores.
PINNED = {}


def on_host(namespace):
    """The command prefix that runs a program on a host of the LAN (its network namespace)."""
    cpu = PINNED.get(namespace)
    return ["ip", "netns", "exec", namespace] + (["taskset", "-c", str(cpu)] if cpu is not None else [])


# ---- signing in, as a script may (Protocol.md §13.1) -----------------------------------

def sign_in(link):
    """The session cookie the login link sets, and the app's origin."""
    url = urllib.parse.urlsplit(link)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    connection.request("GET", link[len(f"http://{url.hostname}:{url.port}"):])
    response = connection.getresponse()
    response.read()
    connection.close()
    cookie = (response.getheader("Set-Cookie") or "").split(";", 1)[0]
    if response.status != 303 or not cookie:
        raise SystemExit(f"web bench: the login link answered {response.status}")
    return url.hostname, url.port, cookie


# ---- `http`: operations over HTTP, in the node's namespace ----------------------------

def http_main(argv):
    parser = argparse.ArgumentParser(prog="web_bench.py http")
    parser.add_argument("link")
    parser.add_argument("operations", help='JSON: [["method", {params}] or ["label", "method", {params}], …]')
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    host, port, cookie = sign_in(args.link)
    operations = json.loads(args.operations)
    connection = http.client.HTTPConnection(host, port, timeout=30)
    out = {}
    # One round of each first, untimed: a keep-alive connection, as the page's.
    for _ in range(args.rounds + 1):
        for operation in operations:
            label, method, params = operation if len(operation) == 3 else (operation[0], *operation)
            body = json.dumps(params)
            start = time.perf_counter()
            connection.request("POST", f"/api/v1/{method}", body=body,
                               headers={"Content-Type": "application/json", "Cookie": cookie,
                                        "Origin": f"http://{host}:{port}"})
            response = connection.getresponse()
            payload = response.read()
            elapsed = (time.perf_counter() - start) * 1000
            if response.status != 200:
                raise SystemExit(f"web bench: {method} answered {response.status}: {payload[:200]!r}")
            entry = out.setdefault(label, {"ms": [], "bytes": len(payload), "warm": False})
            if entry["warm"]:
                entry["ms"].append(elapsed)
            entry["warm"] = True
    connection.close()
    print(json.dumps(out))


# ---- `socket` and `poster`: the web API without a browser, in a node's namespace ---------

def socket_main(argv):
    """One event socket as a tab opens it; prints each message event's text and the wall
    time it was read (ms), one JSON line each: the node's side of a page's event."""
    parser = argparse.ArgumentParser(prog="web_bench.py socket")
    parser.add_argument("link")
    args = parser.parse_args(argv)
    host, port, cookie = sign_in(args.link)
    sock, buffer = websocket_connect(host, port, cookie)
    print(json.dumps({"ready": True}), flush=True)
    while True:
        frame, used = parse_frame(buffer)
        if frame:
            at = time.time() * 1000
            del buffer[:used]
            if frame[0] == 0x8:
                return
            if frame[0] == 0x9:
                sock.sendall(masked(0xA, frame[1]))   # a tab answers the server's pings
            elif frame[0] == 0x1:
                event = json.loads(frame[1])
                if event.get("event") == "message":
                    print(json.dumps({"text": (event.get("message") or {}).get("text"), "at": at}), flush=True)
            continue
        chunk = sock.recv(1 << 16)
        if not chunk:
            return
        buffer += chunk


def poster_main(argv):
    """Sends each line of stdin with the `send` operation over HTTP (a keep-alive connection,
    as the page's) and prints when it was asked and answered (wall ms), one JSON line each."""
    parser = argparse.ArgumentParser(prog="web_bench.py poster")
    parser.add_argument("link")
    parser.add_argument("conversation")
    args = parser.parse_args(argv)
    host, port, cookie = sign_in(args.link)
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.connect()
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        text = line.rstrip("\n")
        body = json.dumps({"conversation": args.conversation, "text": text})
        asked = time.time() * 1000
        connection.request("POST", "/api/v1/send", body=body,
                           headers={"Content-Type": "application/json", "Cookie": cookie,
                                    "Origin": f"http://{host}:{port}"})
        response = connection.getresponse()
        payload = response.read()
        answered = time.time() * 1000
        if response.status != 200:
            raise SystemExit(f"web bench: send answered {response.status}: {payload[:200]!r}")
        print(json.dumps({"text": text, "asked": asked, "answered": answered}), flush=True)


class Lines:
    """A helper process in a node's namespace that prints JSON lines; read by a thread."""

    def __init__(self, command, stdin=False):
        self.child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, bufsize=1,
                                      stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
        self.lines = queue.Queue()
        self.seen = {}
        threading.Thread(target=self._read, daemon=True).start()
        if self.next(30) is None:
            raise SystemExit(f"web bench: {command[4:6]} did not start in 30 s")

    def _read(self):
        for line in self.child.stdout:
            try:
                self.lines.put(json.loads(line))
            except ValueError:
                continue

    def next(self, timeout):
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def wait_for(self, text, timeout=30.0):
        """The line about `text` (what arrived before it is kept for later questions)."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            line = self.next(max(0.001, deadline - time.monotonic()))
            if line is None:
                return None
            if "text" in line:
                self.seen[line["text"]] = line
        return self.seen[text]

    def write(self, text):
        self.child.stdin.write(text + "\n")
        self.child.stdin.flush()

    def close(self):
        end(self.child)


# ---- chat latency through the command line: `send --lines` → `watch --json` ------------

class ChatProbe:
    """One process writing lines (`confab send CONV --lines`) and one watching
    (`confab watch --json CONV`); latency is from a line written to its message event."""

    def __init__(self, send_command, watch_command):
        self.events = queue.Queue()
        self.watch = subprocess.Popen(watch_command, stdout=subprocess.PIPE, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()
        self.sender = subprocess.Popen(send_command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                                       bufsize=1)
        for attempt in range(30):
            if self.one(f"warm-up {os.getpid()} {attempt}", timeout=2) is not None:
                break
        else:
            raise SystemExit("web bench: no message reached `confab watch` in 60 s")

    def _read(self):
        for line in self.watch.stdout:
            at = time.monotonic()
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "message":
                self.events.put((at, (event.get("message") or {}).get("text")))

    def write(self, text):
        self.sender.stdin.write(text + "\n")
        self.sender.stdin.flush()

    def one(self, text, timeout=30.0):
        """Milliseconds from writing `text` until the watch shows it (None: not in time)."""
        start = time.monotonic()
        self.write(text)
        deadline = start + timeout
        while True:
            try:
                at, seen = self.events.get(timeout=max(0.001, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if seen == text:
                return (at - start) * 1000

    def many(self, prefix, count, pause=0.05):
        times = []
        for index in range(count):
            latency = self.one(f"{prefix} {index}")
            if latency is None:
                raise SystemExit(f"web bench: “{prefix} {index}” did not reach `confab watch` in 30 s")
            times.append(latency)
            time.sleep(pause)
        return times

    def close(self):
        end(self.sender, self.watch)


# ---- `tabs`: many event sockets on one node, in its namespace --------------------------

def websocket_connect(host, port, cookie, receive_buffer=None):
    """A WebSocket on /api/v1/events as a tab opens it; returns the socket once the
    subscription's first frame is read, and any bytes read past it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        # Before connecting, so the window it offers stays small: a tab that stops reading.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(10)
    sock.connect((host, port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = "\r\n".join([
        "GET /api/v1/events HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket", "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", f"Origin: http://{host}:{port}",
        f"Cookie: {cookie}"]) + "\r\n\r\n"
    sock.sendall(request.encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise SystemExit("web bench: the event socket closed during its upgrade")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    if b" 101 " not in head.split(b"\r\n", 1)[0]:
        raise SystemExit(f"web bench: the event socket was refused: {head.splitlines()[0]!r}")
    # The subscription's first frame ({"v":1,"ok":true,"result":{}}).
    buffer = bytearray(rest)
    while True:
        frame, used = parse_frame(buffer)
        if frame:
            del buffer[:used]
            break
        chunk = sock.recv(4096)
        if not chunk:
            raise SystemExit("web bench: the event socket closed before it subscribed")
        buffer += chunk
    sock.settimeout(None)
    return sock, buffer


def parse_frame(buffer):
    """((opcode, payload), bytes used) of the first whole frame in buffer, or (None, 0).
    A server's frames are not masked."""
    if len(buffer) < 2:
        return None, 0
    opcode, length = buffer[0] & 0x0F, buffer[1] & 0x7F
    offset = 2
    if length == 126:
        if len(buffer) < 4:
            return None, 0
        length, offset = struct.unpack_from("!H", buffer, 2)[0], 4
    elif length == 127:
        if len(buffer) < 10:
            return None, 0
        length, offset = struct.unpack_from("!Q", buffer, 2)[0], 10
    if len(buffer) < offset + length:
        return None, 0
    return (opcode, bytes(buffer[offset:offset + length])), offset + length


def masked(opcode, payload):
    """A client's frame (masked, as every client frame must be)."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + body


def readers(link, tabs, commands):
    """The tabs, in a process of their own (the probe's timing is not held up by their
    parsing): `tabs` sockets that read every event, and one that never reads. Answers the
    parent's commands over `commands`."""
    host, port, cookie = sign_in(link)
    selector = selectors.DefaultSelector()
    state = {}
    for index in range(tabs):
        sock, rest = websocket_connect(host, port, cookie)
        sock.setblocking(False)
        state[sock] = {"buffer": rest, "frames": 0, "marker_at": None, "close": None, "eof": False}
        selector.register(sock, selectors.EVENT_READ)
    stalled, stalled_rest = websocket_connect(host, port, cookie, receive_buffer=4096)
    selector.register(commands, selectors.EVENT_READ)
    sizes = []
    largest = b""
    marker = None
    commands.send("ready")
    while True:
        for key, _ in selector.select(timeout=0.5):
            if key.fileobj is commands:
                command = commands.recv()
                if isinstance(command, tuple) and command[0] == "arm":
                    marker = command[1]
                    for tab in state.values():
                        tab["marker_at"] = None
                    commands.send("armed")
                elif command == "stats":
                    commands.send({
                        "frames": len(sizes), "median": median(sizes), "p99": pct(sizes, 0.99),
                        "max": max(sizes) if sizes else 0, "largest": largest[:300].decode(errors="replace"),
                        "marker": sorted(s["marker_at"] for s in state.values() if s["marker_at"]),
                        "closed": [s["close"] if s["close"] is not None else "eof" for s in state.values()
                                   if s["close"] is not None or s["eof"]],
                        "per_tab": sorted(s["frames"] for s in state.values()),
                    })
                elif command == "stalled":
                    commands.send(drain(stalled, stalled_rest))
                elif command == "quit":
                    for sock in state:
                        sock.close()
                    commands.send("bye")
                    return
                continue
            sock = key.fileobj
            tab = state[sock]
            try:
                chunk = sock.recv(1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                tab["eof"] = True
                selector.unregister(sock)
                continue
            buffer = tab["buffer"]
            buffer += chunk
            if marker and tab["marker_at"] is None and marker in buffer:
                tab["marker_at"] = time.monotonic()
            while True:
                frame, used = parse_frame(buffer)
                if not frame:
                    break
                del buffer[:used]
                opcode, payload = frame
                if opcode == 0x1:
                    tab["frames"] += 1
                    sizes.append(len(payload))
                    if len(payload) > len(largest):
                        largest = payload
                elif opcode == 0x9:
                    sock.setblocking(True)
                    sock.sendall(masked(0xA, payload))
                    sock.setblocking(False)
                elif opcode == 0x8:
                    tab["close"] = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005


def drain(sock, buffer, timeout=15.0):
    """Reads the tab that never read, now: how many events it had been sent, and how its
    socket ended (the close frame's code, or the connection's end)."""
    frames = 0
    sock.settimeout(timeout)
    buffer = bytearray(buffer)
    ending = "still open after 15 s of reading"
    try:
        while True:
            frame, used = parse_frame(buffer)
            if frame:
                del buffer[:used]
                if frame[0] == 0x1:
                    frames += 1
                elif frame[0] == 0x8:
                    code = struct.unpack("!H", frame[1][:2])[0] if len(frame[1]) >= 2 else 1005
                    ending = f"closed with code {code} ({frame[1][2:].decode(errors='replace')})"
                    break
                continue
            chunk = sock.recv(1 << 16)
            if not chunk:
                ending = "connection ended without a close frame"
                break
            buffer += chunk
    except socket.timeout:
        pass
    except OSError as error:
        ending = f"connection failed: {error}"
    sock.close()
    return {"frames": frames, "ending": ending}


def tabs_main(argv):
    parser = argparse.ArgumentParser(prog="web_bench.py tabs")
    parser.add_argument("--link", required=True)
    parser.add_argument("--confab", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--conversation", required=True)
    parser.add_argument("--peer-namespace", required=True)
    parser.add_argument("--peer-data", required=True)
    parser.add_argument("--tabs", type=int, default=100)
    parser.add_argument("--flood", type=int, default=2000)
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--profile", help="a directory: `perf record` the node during the paced messages")
    args = parser.parse_args(argv)
    mine = [args.confab, "--data", args.data]
    probe_commands = ([*mine, "send", args.conversation, "--lines"],
                      [*mine, "watch", "--json", args.conversation])
    result = {"rss_before": memory_kib(args.pid, "VmRSS"), "flood": args.flood}

    probe = ChatProbe(*probe_commands)
    result["latency_without"] = probe.many("without tabs", args.messages)
    probe.close()

    parent, child = multiprocessing.Pipe()
    tabs = multiprocessing.Process(target=readers, args=(args.link, args.tabs, child), daemon=True)
    tabs.start()
    if not parent.poll(120) or parent.recv() != "ready":
        raise SystemExit("web bench: the tabs did not open in 120 s")
    time.sleep(1)
    result["rss_open"] = memory_kib(args.pid, "VmRSS")
    probe = ChatProbe(*probe_commands)
    result["latency_with"] = probe.many("with tabs", args.messages)
    probe.close()

    def flood(label, rate):
        """The peer's `send --lines` writes FLOOD messages, `rate` a second (0: at once);
        until every open tab has the last one."""
        peer = subprocess.Popen(["ip", "netns", "exec", args.peer_namespace, args.confab, "--data", args.peer_data,
                                 "send", args.conversation, "--lines"], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, text=True)
        parent.send(("arm", f'{label} {args.flood - 1}"'.encode()))
        parent.recv()
        parent.send("stats")
        closed_before = parent.recv()["closed"]
        perf = None
        if args.profile and rate:
            os.makedirs(args.profile, exist_ok=True)
            perf = subprocess.Popen(["perf", "record", "-q", "-F", "997", "-g", "--call-graph", "dwarf,16384",
                                     "-p", str(args.pid), "-o", os.path.join(args.profile, "tabs.data"), "--",
                                     "sleep", str(min(10, args.flood / rate))],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu_before = cpu_seconds(args.pid)
        start = time.monotonic()
        if rate:
            for index in range(args.flood):
                peer.stdin.write(f"{label} {index}\n")
                peer.stdin.flush()
                pause = start + (index + 1) / rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
        else:
            peer.stdin.write("".join(f"{label} {index}\n" for index in range(args.flood)))
        peer.stdin.close()
        written = time.monotonic() - start
        deadline = time.monotonic() + 300
        while True:
            parent.send("stats")
            stats = parent.recv()
            if len(stats["marker"]) + len(stats["closed"]) >= args.tabs or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        cpu = cpu_seconds(args.pid) - cpu_before
        peer.wait(timeout=60)
        if perf:
            perf.wait()
        closed = list(stats["closed"])
        for code in closed_before:
            closed.remove(code)
        return {"rate": rate, "written": written, "cpu": cpu, "reached": len(stats["marker"]),
                "first": stats["marker"][0] - start if stats["marker"] else None,
                "last": stats["marker"][-1] - start if stats["marker"] else None,
                "closed": {str(code): closed.count(code) for code in set(closed)},
                "rss": memory_kib(args.pid, "VmRSS")}

    result["paced"] = flood("paced", args.rate)
    result["burst"] = flood("burst", 0)
    # Read last, when both floods have passed it: more than the socket's and the node's
    # buffers hold beyond its queue of 1,000.
    time.sleep(1)
    parent.send("stalled")
    result["stalled"] = parent.recv()
    result["hwm"] = memory_kib(args.pid, "VmHWM")
    time.sleep(1)
    parent.send("stats")
    result["frames"] = parent.recv()
    parent.send("quit")
    parent.recv()
    tabs.join(10)
    time.sleep(1)
    result["rss_closed"] = memory_kib(args.pid, "VmRSS")
    print(json.dumps(result))


# ---- `drive`: the browsers, from the LAN's third host ----------------------------------

# Installed in every page of the list's browser before its own scripts: when the list's
# first row is in the document, and the frame after it (a task posted from the next
# animation frame runs once that frame is painted).
LIST_PROBE = """
(() => {
  const t = window.__list = {};
  const look = () => {
    const ul = document.querySelector('ul[aria-label="Conversations"]');
    if (!ul || !ul.firstElementChild) return false;
    t.drawn = performance.now();
    t.rows = t.count = ul.children.length;
    t.all = t.drawn;
    // Rows drawn later (a list drawn in batches, or read again whole): when the last came.
    new MutationObserver(() => {
      const now = document.querySelector('ul[aria-label="Conversations"]');
      if (now && now.children.length !== t.count) { t.count = now.children.length; t.all = performance.now(); }
    }).observe(ul.parentNode, { childList: true, subtree: true });
    requestAnimationFrame(() => {
      t.frame = performance.now();
      const c = new MessageChannel();
      c.port1.onmessage = () => { t.painted = performance.now(); };
      c.port2.postMessage(0);
    });
    return true;
  };
  const watcher = new MutationObserver(() => { if (look()) watcher.disconnect(); });
  watcher.observe(document, { childList: true, subtree: true });
})();
"""

# In the receiving browser: when each frame of the event socket naming a "page N" message
# arrives, before the app handles it (timeOrigin + now(): comparable across the browsers).
SOCKET_PROBE = """
(() => {
  const seen = window.__frames = {};
  const Native = window.WebSocket;
  function Probed(...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', (e) => {
      const m = /"text":"((?:page|api) \\d+)"/.exec(e.data);
      if (m && !(m[1] in seen)) seen[m[1]] = performance.timeOrigin + performance.now();
    });
    return ws;
  }
  Probed.prototype = Native.prototype;
  window.WebSocket = Probed;
})();
"""

class Browser:
    """A Chromium on a node's host, driven through its chromedriver from here."""

    def __init__(self, namespace, address, driver_address, port=9515):
        from selenium import webdriver
        self.profile = tempfile.mkdtemp(prefix="chromium-webbench-")
        self.chromedriver = subprocess.Popen(
            [*on_host(namespace), "chromedriver", f"--port={port}", f"--allowed-ips={driver_address}",
             "--allowed-origins=*", "--log-level=WARNING"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not port_open(address, port):
            if time.monotonic() > deadline:
                raise SystemExit(f"web bench: chromedriver on {address} did not start")
            time.sleep(0.1)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--user-data-dir={self.profile}", "--window-size=1100,760", "--no-first-run"]:
            options.add_argument(flag)
        self.driver = webdriver.Remote(command_executor=f"http://{address}:{port}", options=options)
        self.driver.command_executor._commands["executeCdpCommand"] = ("POST", "/session/$sessionId/goog/cdp/execute")
        self.driver.set_script_timeout(60)

    def cdp(self, command, params):
        return self.driver.execute("executeCdpCommand", {"cmd": command, "params": params})["value"]

    def on_new_document(self, source):
        self.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": source})

    def run(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def wait(self, script, *arguments):
        """Runs `script` with `done` (the answer) in scope, and waits for its answer."""
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];\n" + script, *arguments)

    def api(self, method, params):
        return self.wait("""
            fetch('/api/v1/' + arguments[0], {method: 'POST', headers: {'Content-Type': 'application/json'},
                  body: JSON.stringify(arguments[1])}).then((r) => r.json()).then((b) => done(b.result));""",
                         method, params)

    def close(self):
        for action in (lambda: self.driver.quit(),
                       lambda: (self.chromedriver.terminate(), self.chromedriver.wait(10)),
                       lambda: shutil.rmtree(self.profile, ignore_errors=True)):
            try:
                action()
            except Exception:
                pass


def port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class Node:
    """`confab up` with its defaults on a host of the LAN."""

    def __init__(self, confab, namespace, data, name=None):
        self.confab, self.namespace, self.data = confab, namespace, data
        if name:
            self.cli("init", "--name", name)
        self.log = open(os.path.join(data, "up.log"), "a")
        self.process = subprocess.Popen([*on_host(namespace), confab, "--data", data, "up"],
                                        stdout=self.log, stderr=self.log)
        self.pid = self.process.pid   # `ip netns exec` execs confab in place
        deadline = time.monotonic() + 60
        while not self.status().get("web"):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit(f"web bench: the node in {namespace} did not serve the web app in 60 s")
            time.sleep(0.2)

    def command(self, *words):
        return [*on_host(self.namespace), self.confab, "--data", self.data, *words]

    def cli(self, *words):
        out = subprocess.run(self.command(*words), capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"web bench: confab {' '.join(words)} failed: {out.stderr.strip()}")
        return out.stdout

    def status(self):
        out = subprocess.run(self.command("status", "--json"), capture_output=True, text=True)
        return json.loads(out.stdout) if out.returncode == 0 and out.stdout.strip() else {}

    def link(self):
        return self.cli("open", "--print").strip().splitlines()[-1].strip()

    def http(self, operations, rounds=3):
        """The operations' own times over HTTP, from a client in the node's namespace."""
        out = subprocess.run(["ip", "netns", "exec", self.namespace, PYTHON, os.path.join(HERE, "web_bench.py"),
                              "http", self.link(), json.dumps(operations), "--rounds", str(rounds)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"web bench: the HTTP client failed: {out.stderr.strip() or out.stdout.strip()}")
        return json.loads(out.stdout)

    def stop(self):
        end(self.process, timeout=30)
        self.log.close()


def part_list_and_open(args, report):
    node = Node(args.confab, args.alice, args.fixture)
    browser = None
    try:
        browser = Browser(args.alice, f"{args.subnet}.1", f"{args.subnet}.3")
        browser.on_new_document(LIST_PROBE)
        link = node.link()
        origin = link.split("/login", 1)[0]
        browser.driver.get(link)
        # The rows the page draws first are those it reads first (Web/js/list.js, FIRST_ROWS):
        # the floor reads as many, whichever build this is.
        first_rows = browser.wait("""
            const tick = () => window.__list && window.__list.painted ? done(window.__list.rows) : setTimeout(tick, 20);
            tick();""")
        rows = len(browser.api("conversations", {"filter": "inbox"}))
        # The first load (no cached script) is not counted; then reloads, each beside the
        # same operation over HTTP.
        loads = []
        floors = {"whole": [], "first": []}
        floor_reads = [["whole", "conversations", {"filter": "inbox"}],
                       ["first", "conversations", {"filter": "inbox", "limit": first_rows}]]
        for _ in range(args.runs):
            browser.driver.get(origin + "/")
            t = browser.wait("""
                const tick = () => {
                  const t = window.__list;
                  if (!t || t.painted === undefined || t.count < arguments[0]) { setTimeout(tick, 20); return; }
                  const nav = performance.getEntriesByType('navigation')[0];
                  const res = performance.getEntriesByType('resource');
                  // The list's reads: its first rows (when the page asks for them apart), and all of it.
                  const reads = res.filter((e) => e.name.endsWith('/api/v1/conversations'))
                    .sort((a, b) => a.decodedBodySize - b.decodedBodySize);
                  const first = reads[0], whole = reads[reads.length - 1];
                  const scripts = res.filter((e) => e.initiatorType === 'script' || e.name.includes('/js/'));
                  done(Object.assign({}, t, {
                    html: nav.responseEnd, scripts: Math.max(0, ...scripts.map((e) => e.responseEnd)),
                    asked: first.startTime, answered: first.responseEnd, reads: reads.length,
                    whole: whole.responseEnd}));
                };
                tick();""", rows)
            loads.append(t)
            answers = node.http(floor_reads, rounds=2)
            for label in floors:
                floors[label] += answers[label]["ms"]
        report["list"] = {"rows": rows, "first_rows": first_rows, "loads": loads, "floor": floors,
                          "bytes": {label: answers[label]["bytes"] for label in floors}}

        # Opening: the long thread and, for comparison, a thread of 100; each click on a row
        # after the other thread is open, so each is a fresh open.
        conversations = browser.api("conversations", {"filter": "inbox"})
        long = next(c for c in conversations if c.get("title") == args.long_title)
        # One of 100 from the middle of the list (read already: opening it changes nothing).
        short = next(c for c in conversations[len(conversations) // 2:] if not c.get("title"))
        newest = {}
        for c in (long, short):
            page = browser.api("history", {"conversation": c["id"], "limit": 1})
            newest[c["id"]] = page["messages"][-1]["text"]
        opens = {long["id"]: [], short["id"]: []}
        floors = {"history": [], "conversation": []}
        if args.page_profile:
            browser.cdp("Profiler.enable", {})
            browser.cdp("Profiler.setSamplingInterval", {"interval": 200})
            browser.cdp("Profiler.start", {})
        for _ in range(args.runs):
            for c in (long, short):
                opens[c["id"]].append(open_row(browser, c, newest[c["id"]]))
            answers = node.http([["history", {"conversation": long["id"], "limit": 60}],
                                 ["conversation", {"conversation": long["id"]}]], rounds=2)
            for method in floors:
                floors[method] += answers[method]["ms"]
        if args.page_profile:
            write_page_profile(browser.cdp("Profiler.stop", {})["profile"], args.page_profile)
        report["open"] = {"long": opens[long["id"]], "short": opens[short["id"]], "floor": floors,
                          "bytes": answers["history"]["bytes"]}

        # What a message costs the node while a tab shows this list (the page reads things
        # again on each event), beside the same without one: messages written into the long
        # thread by `confab send --lines` on the node's machine, a second apart.
        with_page = node_cpu_per_message(node, long["id"], "with a page")
        browser.close()
        browser = None
        report["cpu"] = {"with": with_page, "without": node_cpu_per_message(node, long["id"], "without a page")}
    finally:
        if browser:
            browser.close()
        node.stop()


def write_page_profile(profile, directory, file="page.txt"):
    """Where the page's main thread went (CDP's sampling profiler): self time by function,
    and inclusive time, into DIR/page.txt (the opens) or DIR/live.txt (B's page while the
    messages arrive)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    deltas = profile.get("timeDeltas", [])
    self_time, total_time = {}, {}
    name = lambda node: (f"{node['callFrame']['functionName'] or '(anonymous)'} "
                         f"{node['callFrame']['url'].rsplit('/', 1)[-1]}:{node['callFrame']['lineNumber'] + 1}")
    for index, sample in enumerate(profile.get("samples", [])):
        ms = (deltas[index + 1] if index + 1 < len(deltas) else 0) / 1000
        self_time[name(nodes[sample])] = self_time.get(name(nodes[sample]), 0) + ms
        seen, at = set(), sample
        while at is not None:
            label = name(nodes[at])
            if label not in seen:
                seen.add(label)
                total_time[label] = total_time.get(label, 0) + ms
            at = parent.get(at)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, file), "w") as out:
        out.write(f"{(profile['endTime'] - profile['startTime']) / 1000:.0f} ms profiled\n\nself:\n")
        for label, ms in sorted(self_time.items(), key=lambda item: -item[1])[:40]:
            out.write(f"{ms:9.1f} ms  {label}\n")
        out.write("\ninclusive:\n")
        for label, ms in sorted(total_time.items(), key=lambda item: -item[1])[:60]:
            out.write(f"{ms:9.1f} ms  {label}\n")


def node_cpu_per_message(node, conversation, label, count=10):
    sender = subprocess.Popen(node.command("send", conversation, "--lines"), stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, text=True)
    time.sleep(1)
    before = cpu_seconds(node.pid)
    for index in range(count):
        sender.stdin.write(f"cpu {label} {index}\n")
        sender.stdin.flush()
        time.sleep(1)
    spent = cpu_seconds(node.pid) - before
    sender.stdin.close()
    sender.wait(timeout=30)
    return spent / count * 1000


def open_row(browser, conversation, newest):
    """Clicks the conversation's row; in the page: the click's time, the newest message in
    the log, the frame after it, and the open's two reads (history, conversation)."""
    browser.run("""
        const newest = arguments[0];
        const t = window.__open = {};
        performance.clearResourceTimings();
        // The click's own time, when the page began to handle it, and when its handlers were done.
        document.addEventListener('click', (e) => { t.click = e.timeStamp; t.dispatch = performance.now(); },
                                  { capture: true, once: true });
        window.addEventListener('click', () => { t.handled = performance.now(); }, { once: true });
        const log = document.getElementById('log');
        const watcher = new MutationObserver(() => {
          if (t.drawn !== undefined || !log.textContent.includes(newest)) return;
          t.drawn = performance.now();
          t.bubbles = log.querySelectorAll('.bubble').length;
          watcher.disconnect();
          requestAnimationFrame(() => {
            const c = new MessageChannel();
            c.port1.onmessage = () => { t.painted = performance.now(); };
            c.port2.postMessage(0);
          });
        });
        watcher.observe(log, { childList: true, subtree: true });""", newest)
    from selenium.webdriver.common.by import By
    deadline = time.monotonic() + 30
    while True:
        rows = browser.driver.find_elements(By.CSS_SELECTOR, f'ul[aria-label="Conversations"] li[data-id="{conversation["id"]}"] button.row-main')
        if rows:
            try:
                rows[0].click()
                break
            except Exception:
                pass
        if time.monotonic() > deadline:
            raise SystemExit("web bench: the conversation's row was not there to click")
        time.sleep(0.05)
    return browser.wait("""
        const tick = () => {
          const t = window.__open;
          if (t.painted === undefined) { setTimeout(tick, 20); return; }
          const res = performance.getEntriesByType('resource');
          const entry = (name) => res.find((r) => r.name.endsWith('/api/v1/' + name)) || {};
          // The list read again meanwhile (after the open before this one, or this one's own).
          const lists = res.filter((r) => r.name.endsWith('/api/v1/conversations'));
          done(Object.assign({}, t, { asked: entry('history').startTime, history: entry('history').responseEnd,
                                      conversation: entry('conversation').responseEnd, lists: lists.length,
                                      listBytes: lists.reduce((n, r) => n + r.decodedBodySize, 0) }));
        };
        tick();""")


def part_live(args, report, alice, bob, conversation):
    browsers = {}
    probe = watcher = poster = None
    script = os.path.join(HERE, "web_bench.py")
    try:
        for name, node, index in (("alice", alice, 1), ("bob", bob, 2)):
            browser = Browser(node.namespace, f"{args.subnet}.{index}", f"{args.subnet}.3")
            if name == "bob":
                browser.on_new_document(SOCKET_PROBE)
            link = node.link()
            browser.driver.get(link)
            browser.driver.get(link.split("/login", 1)[0] + f"/#/c/{conversation}")
            browser.wait("""
                const tick = () => document.querySelector('#log .bubble') ? done(true) : setTimeout(tick, 50);
                tick();""")
            browsers[name] = browser
        a, b = browsers["alice"], browsers["bob"]
        # Alice's page: when Enter is pressed in the message box (the event's own time), and
        # her `send` request's times, keyed by the text that was sent.
        a.run("""
            window.__enter = {};
            document.addEventListener('keydown', (e) => {
              if (e.key === 'Enter' && e.target.matches('textarea')) window.__enter[e.target.value] = performance.timeOrigin + e.timeStamp;
            }, { capture: true });""")
        # Bob's page: when each "page N" message's bubble is in the log, and the frame after.
        b.run("""
            const seen = window.__bubbles = {};
            const log = document.getElementById('log');
            new MutationObserver((records) => {
              const now = performance.timeOrigin + performance.now();
              for (const r of records) for (const n of r.addedNodes) {
                if (n.nodeType !== 1) continue;
                const el = n.matches('.bubble > .text') ? n : n.querySelector('.bubble > .text');
                const m = el && /^(?:page|api) \\d+$/.exec(el.textContent.trim());
                if (!m || seen[m[0]]) continue;
                const s = seen[m[0]] = { drawn: now };
                requestAnimationFrame(() => {
                  const c = new MessageChannel();
                  c.port1.onmessage = () => { s.painted = performance.timeOrigin + performance.now(); };
                  c.port2.postMessage(0);
                });
              }
            }).observe(log, { childList: true, subtree: true });""")
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        box = lambda: a.driver.find_element(By.CSS_SELECTOR, 'textarea[aria-label="Message"]')
        box().click()
        probe = ChatProbe(alice.command("send", conversation, "--lines"),
                          bob.command("watch", "--json", conversation))
        # Beside the pages, the same web API without a browser: an event socket on Bob's node
        # (read by a script: when the node's frame is on the wire) and `send` over HTTP on
        # Alice's, so the page's time splits into the nodes' and the browsers'.
        watcher = Lines([*on_host(bob.namespace), PYTHON, script, "socket", bob.link()])
        poster = Lines([*on_host(alice.namespace), PYTHON, script, "poster", alice.link(), conversation],
                       stdin=True)

        def painted_in_bob(text):
            """When `text` reached Bob's page's socket, was in his log and was painted; None
            after 30 s."""
            return b.wait("""
                const text = arguments[0];
                const deadline = performance.now() + 30000;
                const tick = () => {
                  const s = window.__bubbles[text];
                  if (s && s.painted) done(Object.assign({ frame: window.__frames[text] || null }, s));
                  else if (performance.now() > deadline) done(null);
                  else setTimeout(tick, 10);
                };
                tick();""", text)

        def api_message(index):
            text = f"api {index}"
            poster.write(text)
            sent, seen = poster.wait_for(text), watcher.wait_for(text)
            if not sent or not seen:
                raise SystemExit(f"web bench: “{text}” did not reach Bob's event socket in 30 s")
            # Bob's page too: what his browser adds when nothing runs in Alice's.
            page = painted_in_bob(text) or {}
            return {"asked": sent["asked"], "answered": sent["answered"], "socket": seen["at"],
                    "frame": page.get("frame"), "drawn": page.get("drawn"), "painted": page.get("painted")}

        def page_message(index):
            text = f"page {index}"
            a.run("performance.clearResourceTimings();")
            box().send_keys(text)
            box().send_keys(Keys.ENTER)
            seen = painted_in_bob(text)
            if not seen:
                a.driver.save_screenshot("/tmp/wb-debug/alice.png")
                b.driver.save_screenshot("/tmp/wb-debug/bob.png")
                debug = b.run("return [Object.keys(window.__bubbles), window.__frames, document.getElementById('log').textContent.slice(-300)]")
                raise SystemExit(f"web bench: “{text}” did not reach Bob's page in 30 s ({debug})")
            sent = a.run("""
                const e = performance.getEntriesByType('resource').find((r) => r.name.endsWith('/api/v1/send'));
                return { enter: window.__enter[arguments[0]],
                         asked: e ? performance.timeOrigin + e.startTime : null,
                         request: e ? performance.timeOrigin + e.requestStart : null,
                         response: e ? performance.timeOrigin + e.responseStart : null,
                         answered: e ? performance.timeOrigin + e.responseEnd : null };""", text)
            raw = watcher.wait_for(text)
            return {**sent, **seen, "socket": raw["at"] if raw else None}

        for index in range(1000, 1003):   # warm-up, not counted
            page_message(index)
            api_message(index)
        if args.page_profile:
            b.cdp("Profiler.enable", {})
            b.cdp("Profiler.setSamplingInterval", {"interval": 200})
            b.cdp("Profiler.start", {})
        nodes, pages, apis = [], [], []
        for index in range(args.messages):
            # Each kind first, second and last in turn.
            order = [(0, 1, 2), (1, 2, 0), (2, 0, 1)][index % 3]
            for which in order:
                if which == 0:
                    latency = probe.one(f"node {index}")
                    if latency is None:
                        raise SystemExit(f"web bench: “node {index}” did not reach Bob's watch in 30 s")
                    nodes.append(latency)
                elif which == 1:
                    pages.append(page_message(index))
                else:
                    apis.append(api_message(index))
                time.sleep(args.pause)
        report["live"] = {"node": nodes, "page": pages, "api": apis}
        if args.page_profile:
            write_page_profile(b.cdp("Profiler.stop", {})["profile"], args.page_profile, "live.txt")
    finally:
        for helper in (probe, watcher, poster):
            if helper:
                helper.close()
        for browser in browsers.values():
            browser.close()


def drive_main(argv):
    parser = argparse.ArgumentParser(prog="web_bench.py drive")
    parser.add_argument("--confab", required=True)
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--long-title", default="Long thread")
    parser.add_argument("--work", required=True)
    parser.add_argument("--alice", required=True)
    parser.add_argument("--bob", required=True)
    parser.add_argument("--subnet", required=True)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--pause", type=float, default=1.0,
                        help="seconds between messages: what one sets off (read receipts, the list read again) is over")
    parser.add_argument("--tabs", type=int, default=100)
    parser.add_argument("--flood", type=int, default=2000)
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--profile")
    parser.add_argument("--page-profile", help="a directory: the page's own profile during the opens (page.txt)")
    parser.add_argument("--parts", default="list,live,tabs")
    parser.add_argument("--pin", action="store_true", help="each node's host on a core of its own (taskset)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    report = {"confab": args.confab, "pinned": args.pin}
    if args.pin:
        PINNED.update({args.alice: 0, args.bob: 1})
    if "list" in parts:
        part_list_and_open(args, report)
        save(args.out, report)
    if parts & {"live", "tabs"}:
        alice = bob = None
        try:
            alice = Node(args.confab, args.alice, make_dir(args.work, "alice"), name="alice")
            bob = Node(args.confab, args.bob, make_dir(args.work, "bob"), name="bob")
            deadline = time.monotonic() + 60
            while '"bob"' not in alice.cli("peers", "--json") or '"alice"' not in bob.cli("peers", "--json"):
                if time.monotonic() > deadline:
                    raise SystemExit("web bench: alice and bob did not find each other in 60 s")
                time.sleep(0.2)
            conversation = json.loads(alice.cli("send", "bob", "hello", "--wait", "--json"))["conversation"]
            if "live" in parts:
                part_live(args, report, alice, bob, conversation)
                save(args.out, report)
            if "tabs" in parts:
                out = subprocess.run(
                    ["ip", "netns", "exec", args.alice, PYTHON, os.path.join(HERE, "web_bench.py"), "tabs",
                     "--link", alice.link(), "--confab", args.confab, "--data", alice.data, "--pid", str(alice.pid),
                     "--conversation", conversation, "--peer-namespace", args.bob, "--peer-data", bob.data,
                     "--tabs", str(args.tabs), "--flood", str(args.flood), "--rate", str(args.rate),
                     "--messages", str(args.messages)] + (["--profile", args.profile] if args.profile else []),
                    capture_output=True, text=True)
                if out.returncode != 0:
                    raise SystemExit(f"web bench: the tabs failed: {out.stderr.strip() or out.stdout.strip()}")
                report["tabs"] = json.loads(out.stdout)
                save(args.out, report)
        finally:
            for node in (alice, bob):
                if node:
                    node.stop()


def make_dir(work, name):
    path = os.path.join(work, name)
    os.makedirs(path, exist_ok=True)
    return path


def save(path, report):
    with open(path, "w") as out:
        json.dump(report, out)


# ---- `table`: the figures ---------------------------------------------------------------

def list_table(report, beside):
    """The list, open and CPU figures of one build."""
    if "list" in report:
        r = report["list"]
        loads = r["loads"]
        painted = [t["painted"] for t in loads]
        split = loads[0]["reads"] > 1
        print(f"list first paint, {r['rows']} conversations (110,000 messages): {spread(painted)}   target 200 ms")
        print(f"  from navigation start: HTML {median([t['html'] for t in loads]):.1f} ms, scripts loaded "
              f"{median([t['scripts'] for t in loads]):.1f}, `conversations` asked {median([t['asked'] for t in loads]):.1f}, "
              + (f"its first {r['first_rows']} rows answered " if split else "answered ")
              + f"{median([t['answered'] for t in loads]):.1f}, the first rows in the document "
              f"{median([t['drawn'] for t in loads]):.1f} ({loads[0]['rows']}), next frame "
              f"{median([t['frame'] for t in loads]):.1f}, painted {median(painted):.1f}")
        if split:
            print(f"  the whole list answered at {median([t['whole'] for t in loads]):.1f} ms, all its rows in the "
                  f"document at {median([t['all'] for t in loads]):.1f}")
        print(f"  floor: `conversations` over HTTP alone, the whole list ({r['bytes']['whole'] / 1024:.0f} KiB of JSON) "
              f"{spread(r['floor']['whole'])}; its first {r['first_rows']} rows ({r['bytes']['first'] / 1024:.0f} KiB) "
              f"{spread(r['floor']['first'])}")
        for line in beside("store, conversations") + beside("chat first frame"):
            print(f"  beside: {' '.join(line.split())}")
    if "open" in report:
        r = report["open"]
        for label, key in (("10,000", "long"), ("100", "short")):
            opens = r[key]
            painted = [t["painted"] - t["click"] for t in opens]
            print(f"open a conversation of {label} messages (click → newest in the log, painted): {spread(painted)}"
                  + ("   target 100 ms" if key == "long" else ""))
            print(f"  after the click: handled from {median([t['dispatch'] - t['click'] for t in opens]):.1f} ms to "
                  f"{median([t['handled'] - t['click'] for t in opens]):.1f}, "
                  f"the reads asked {median([t['asked'] - t['click'] for t in opens]):.1f} ms, "
                  f"`history` answered {median([t['history'] - t['click'] for t in opens]):.1f} ms, "
                  f"`conversation` {median([t['conversation'] - t['click'] for t in opens]):.1f}, drawn "
                  f"{median([t['drawn'] - t['click'] for t in opens]):.1f} ({opens[0]['bubbles']} bubbles), painted "
                  f"{median(painted):.1f}")
            if "lists" in opens[0]:
                print(f"  the list read again meanwhile: {sum(t['lists'] for t in opens)} reads in {len(opens)} opens, "
                      f"{sum(t['listBytes'] for t in opens) / len(opens) / 1024:.0f} KiB an open")
        print(f"  floor: `history` (limit 60, {r['bytes'] / 1024:.0f} KiB) over HTTP alone {spread(r['floor']['history'])}; "
              f"`conversation` {spread(r['floor']['conversation'])}")
        for line in beside("store, history"):
            print(f"  beside: {' '.join(line.split())}")
    if "cpu" in report:
        print(f"node CPU per message written into the store, a second apart: {report['cpu']['with']:.0f} ms with a page "
              f"open on the list, {report['cpu']['without']:.0f} ms without")


def table_main(argv):
    report = json.load(open(argv[0]))
    floors = open(argv[1]).read().splitlines() if len(argv) > 1 and os.path.exists(argv[1]) else []
    before = json.load(open(argv[2])) if len(argv) > 2 and os.path.exists(argv[2]) else None
    beside = lambda prefix: [line for line in floors if line.startswith(prefix)]
    print(f"web app benchmarks, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end"
          + (", each node's host on a core of its own (PIN=1)" if report.get("pinned") else ""))
    if before:
        print(f"before (BEFORE={before['confab']}), in the same run, first:")
        list_table(before, beside)
        print("this build:")
    list_table(report, beside)
    if "live" in report:
        nodes = report["live"]["node"]
        pages = report["live"]["page"]
        page = [p["painted"] - p["enter"] for p in pages]
        print(f"a message, page to page (Enter in A's page → the bubble painted in B's): "
              f"median {median(page):.1f} ms, p90 {pct(page, 0.9):.1f} ms (n={len(page)})")
        print(f"  node to node (`confab send --lines` on A → `confab watch --json` on B): "
              f"median {median(nodes):.1f} ms, p90 {pct(nodes, 0.9):.1f} ms (n={len(nodes)})")
        print(f"  difference: median {median(page) - median(nodes):.1f} ms, p90 {pct(page, 0.9) - pct(nodes, 0.9):.1f} ms"
              f"   target: median within 20 ms")
        after = lambda key: median([p[key] - p["enter"] for p in pages if p.get(key)])
        print(f"  after Enter (medians): A's `send` asked {after('asked'):.1f} ms, sent {after('request'):.1f}, "
              f"its answer's first byte {after('response'):.1f}, answered {after('answered'):.1f}; "
              f"the event on B's socket {after('frame'):.1f}; the bubble in B's log {after('drawn'):.1f}, painted "
              f"{median(page):.1f}")
        print(f"  B's event on a script's socket beside the page: {after('socket'):.1f} ms after Enter "
              f"(the page's socket read it {median([p['frame'] - p['socket'] for p in pages if p.get('frame') and p.get('socket')]):.1f} ms later)")
        apis = report["live"].get("api") or []
        if apis:
            api = [a["socket"] - a["asked"] for a in apis]
            print(f"  web API without a browser (`send` over HTTP on A → B's event socket): median {median(api):.1f} ms, "
                  f"p90 {pct(api, 0.9):.1f} ms (n={len(api)}); `send` answered after {median([a['answered'] - a['asked'] for a in apis]):.1f} ms")
            since = lambda key: median([a[key] - a["asked"] for a in apis if a.get(key)])
            print(f"    and in B's page (nothing runs in A's browser): its socket read it {since('frame'):.1f} ms after "
                  f"`send` was asked, the bubble in the log {since('drawn'):.1f}, painted {since('painted'):.1f}")
    if "tabs" in report:
        r = report["tabs"]
        f = r["frames"]
        tabs = len(f["per_tab"])
        print(f"{tabs} event sockets on one node, {f['frames']} event frames read: payload median {f['median']:.0f} B, "
              f"p99 {f['p99']:.0f} B, largest {f['max']} B   target under 1 KB")
        print(f"  node RSS: {r['rss_before'] / 1024:.1f} MiB before, {r['rss_open'] / 1024:.1f} MiB with the sockets open, "
              f"{r['paced']['rss'] / 1024:.1f} MiB after the paced messages, {r['burst']['rss'] / 1024:.1f} MiB after "
              f"the burst (peak {r['hwm'] / 1024:.1f}), {r['rss_closed'] / 1024:.1f} MiB once the sockets closed")
        for label, key in (("paced", "paced"), ("at once", "burst")):
            flood = r[key]
            rate = f"{flood['rate']}/s" if flood["rate"] else "at once"
            reached = (f"the last one reached {flood['reached']} sockets {flood['first']:.2f}–{flood['last']:.2f} s "
                       "after the first was written" if flood["reached"] else "the last one reached no socket")
            closed = ", ".join(f"{n} with code {code}" for code, n in sorted(flood["closed"].items())) or "none"
            print(f"  a peer's {r['flood']} messages {rate} (written in {flood['written']:.1f} s): {reached}; "
                  f"sockets closed: {closed}; node CPU {flood['cpu']:.1f} s")
        print(f"  the socket that never read: {r['stalled']['ending']}, after {r['stalled']['frames']} events   "
              f"expected: code 4008")
        for label, key in (("without the sockets", "latency_without"), (f"with {tabs} sockets", "latency_with")):
            values = r[key]
            print(f"  the node's own chat latency (send → watch) {label:20} median {median(values):6.2f} ms, "
                  f"p90 {pct(values, 0.9):6.2f} ms")


if __name__ == "__main__":
    command, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "http":
        http_main(rest)
    elif command == "tabs":
        tabs_main(rest)
    elif command == "socket":
        socket_main(rest)
    elif command == "poster":
        poster_main(rest)
    elif command == "drive":
        drive_main(rest)
    elif command == "table":
        table_main(rest)
    else:
        print(__doc__)
        sys.exit(2)
