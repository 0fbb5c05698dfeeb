#!/usr/bin/env bash
# A file between two machines on a LAN, measured: two release `confab up` nodes in network
# namespaces on one bridge (finding each other by subnet broadcast), and
# `confab send-file bob FILE --wait` of MIB MiB of random bytes. Prints, per run:
#   - send-file's import (the file encrypted into alice's store; its message written last),
#   - MiB/s from the message being written until bob's node holds the file whole, beside a
#     raw TCP copy of the same bytes between the same two namespaces measured in the same
#     run (python3, 1 MiB reads and writes, the receiver writing a file), with the ratio,
#   - the one-way latency of chat messages sent one after another during the transfer,
#     beside the same while idle,
#   - beside the ratio, the most that the protocol's per-byte cryptography (box-stream seal
#     and open, each chunk's BLAKE2b) allows on this machine's cores, measured in the same run
#     by `confab-bench --file-crypto` (when it is beside the confab binary): on a link faster
#     than that, no transfer reaches the raw copy,
# and checks that the file bob saves (`confab save`) has the source's SHA-256.
# It runs twice: on bare veth links (memory speed) and on links shaped to a gigabit LAN
# (tbf at 1 Gbit/s on each host's interface).
#
#   Bench/lan-file.sh [MIB]     (default 1000; CONFAB=path/to/confab, default the release
#                                build; SHAPES="veth gigabit" picks the runs; KEEP_LOGS=DIR)
#
# Needs root (ip netns, tc). Everything is sent inside namespaces this script creates, on the
# private test subnet 10.239.0.0/24; nothing reaches this machine's real interfaces.
set -euo pipefail
cd "$(dirname "$0")/.."
confab=$(realpath "${CONFAB:-.build/release/confab}")
mib=${1:-1000}
shapes=${SHAPES:-veth gigabit}
subnet=10.239.0
[[ -x $confab ]] || { echo "lan-file: no confab binary at $confab (swift build -c release --product confab)" >&2; exit 1; }
[[ $mib =~ ^[1-9][0-9]*$ ]] || { echo "lan-file: MIB must be a positive number of MiB, not \"$mib\"" >&2; exit 2; }
command -v python3 >/dev/null || { echo "lan-file: needs python3" >&2; exit 1; }
for shape in $shapes; do
    case $shape in veth | gigabit) ;; *) echo "lan-file: unknown shape \"$shape\" in SHAPES (veth, gigabit)" >&2; exit 2 ;; esac
done
bench=$(dirname "$confab")/confab-bench
crypto_ceiling=
if [[ -x $bench ]]; then
    crypto=$("$bench" --file-crypto)
    echo "lan file: $crypto"
    crypto_ceiling=$(sed -n 's/.*at most \([0-9]*\) MiB\/s.*/\1/p' <<<"$crypto")
fi
work=$(mktemp -d /tmp/confab-lanfile.XXXXXX)
pids=()
namespaces=()

source Tests/LAN/namespaces.sh
cleanup() {
    lan_teardown
    if [[ -n "${KEEP_LOGS:-}" ]]; then mkdir -p "$KEEP_LOGS" && cp "$work"/*.log "$KEEP_LOGS"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "lan-file: interrupted" >&2; exit 130' INT TERM

# Free space for the source, the raw copy, both stores' encrypted copies and the saved file.
need=$(((mib * 5 + 200) * 1024))
free=$(df -Pk "$work" | awk 'NR == 2 {print $4}')
((free > need)) || { echo "lan-file: $work has $((free / 1024)) MiB free; $mib MiB needs about $((need / 1024))" >&2; exit 1; }

payload=$work/payload.bin
head -c "$((mib << 20))" /dev/urandom >"$payload"
digest=$(sha256sum "$payload" | cut -d' ' -f1)
sync "$payload" # its writeback would otherwise slow the first copy

# raw_copy TAG VAR [DEST]: sets VAR to the seconds taken to copy the payload from host 1 to a
# file on host 2 (or to DEST, e.g. /dev/null for the link alone) over one TCP connection,
# from connecting until the receiver has written the last byte and closed. (Not in a
# subshell: the listener must be in `pids` for the cleanup.)
raw_copy() {
    local tag=$1 listener seconds out=${3:-$work/raw.out}
    ip netns exec "${tag}h2" python3 - "$subnet.2" "$out" <<'PY' &
import socket, sys
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((sys.argv[1], 7470))
server.listen(1)
server.settimeout(60)
connection, _ = server.accept()
buffer = memoryview(bytearray(1 << 20))
with open(sys.argv[2], "wb") as out:
    while n := connection.recv_into(buffer):
        out.write(buffer[:n])
connection.close()
PY
    listener=$!
    pids+=("$listener")
    seconds=$(ip netns exec "${tag}h1" python3 - "$subnet.2" "$payload" <<'PY'
import socket, sys, time
deadline = time.monotonic() + 20
while True:
    try:
        connection = socket.create_connection((sys.argv[1], 7470), timeout=5)
        break
    except OSError:
        if time.monotonic() > deadline: raise
        time.sleep(0.05)
connection.settimeout(None)
buffer = memoryview(bytearray(1 << 20))
start = time.monotonic()
with open(sys.argv[2], "rb") as source:
    while n := source.readinto(buffer):
        connection.sendall(buffer[:n])
connection.shutdown(socket.SHUT_WR)
connection.recv(1)  # the end of the stream: the receiver wrote everything and closed
print(f"{time.monotonic() - start:.4f}")
PY
    )
    wait "$listener" || { echo "lan-file: the raw copy's listener failed" >&2; exit 1; }
    if [[ -f $out ]]; then
        [[ $(stat -c %s "$out") == $((mib << 20)) ]] || { echo "lan-file: the raw copy wrote $(stat -c %s "$out") bytes, not $((mib << 20))" >&2; exit 1; }
        rm -f "$out"
    fi
    printf -v "$2" %s "$seconds"
}

# one_run TAG SHAPE: a fresh LAN of two hosts, the raw copy, the Confab transfer, the raw copy
# again; prints the figures.
one_run() {
    local tag=$1 shape=$2 i
    lan_create "$tag" "$subnet" 2 || { echo "lan-file: cannot create network namespaces here (needs root and iproute2)" >&2; exit 1; }
    if [[ $shape == gigabit ]]; then
        # A gigabit NIC on each host: 1 Gbit/s leaves each one, through a queue of at most 10 ms.
        for i in 1 2; do ip netns exec "${tag}h$i" tc qdisc add dev eth0 root tbf rate 1gbit burst 256kb latency 10ms; done
    fi
    local raw_before raw_after raw_link load
    load=$(cut -d' ' -f1 /proc/loadavg)
    raw_copy "$tag" raw_before
    raw_copy "$tag" raw_link /dev/null

    cli() { local i=$1; shift; NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/$tag-h$i" "$@"; }
    cli 1 init --name alice >/dev/null
    cli 2 init --name bob >/dev/null
    # Over the automatic-download limit otherwise: bob takes files of any size here.
    cli 2 files --auto-download 100GB >/dev/null
    local nodes=()
    for i in 1 2; do
        ip netns exec "${tag}h$i" "$confab" --data "$work/$tag-h$i" up --listen "$subnet.$i:7461" \
            --discovery-port 7460 --log-level "${LOG_LEVEL:-warning}" >>"$work/$tag-h$i.log" 2>&1 &
        pids+=("$!")
        nodes+=("$!")
    done
    local deadline=$((SECONDS + 60))
    until cli 1 peers --json 2>/dev/null | grep -q '"bob"' && cli 2 peers --json 2>/dev/null | grep -q '"alice"'; do
        ((SECONDS < deadline)) || { echo "lan-file: alice and bob did not find each other in 60 s (logs: KEEP_LOGS=DIR)" >&2; exit 1; }
        sleep 0.2
    done
    local conversation
    conversation=$(cli 1 send bob "hello" --wait --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["conversation"])')

    local figures
    figures=$(python3 - "$confab" "$work" "$tag" "$conversation" "$payload" "${nodes[@]}" <<'PY'
import json, os, queue, signal, subprocess, sys, threading, time
confab, work, tag, conversation, payload = sys.argv[1:6]
node_pids = sys.argv[6:8]
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
children = []

def node(host, *args, **options):
    command = ["ip", "netns", "exec", f"{tag}h{host}", confab, "--data", f"{work}/{tag}-h{host}", *args]
    child = subprocess.Popen(command, text=True, bufsize=1, **options)
    children.append(child)
    return child

def fail(text):
    print(f"lan-file: {text}", file=sys.stderr)
    sys.exit(1)

events = queue.Queue()
complete = {}  # file id → when bob's node said it holds it whole

def read_events(watch):
    for line in watch.stdout:
        now = time.monotonic()
        try:
            events.put((now, json.loads(line)))
        except ValueError:
            pass
    events.put((time.monotonic(), None))

def handle(at, event):
    if event is None:
        fail("bob's `confab watch` ended")
    if event.get("event") == "file" and event.get("file", {}).get("state") == "complete":
        complete.setdefault(event["file"]["id"], at)

def next_event(deadline):
    try:
        at, event = events.get(timeout=max(0.001, deadline - time.monotonic()))
    except queue.Empty:
        return None
    handle(at, event)
    return event

sender = None

def cpu_seconds():
    """User and system CPU-seconds of alice's and bob's `confab up` so far."""
    result = []
    for pid in node_pids:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        result.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    return result

def send(text, timeout=30.0):
    """Milliseconds from writing the line to alice's `send --lines` until bob's watch shows it."""
    start = time.monotonic()
    sender.stdin.write(text + "\n")
    sender.stdin.flush()
    deadline = start + timeout
    while time.monotonic() < deadline:
        event = next_event(deadline)
        if event and event.get("event") == "message" and event.get("message", {}).get("text") == text:
            return (time.monotonic() - start) * 1000
    return None

try:
    watch = node(2, "watch", "--json", conversation, stdout=subprocess.PIPE)
    threading.Thread(target=read_events, args=(watch,), daemon=True).start()
    sender = node(1, "send", conversation, "--lines", stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    # The watch may subscribe after the first lines: warm up until one arrives.
    for attempt in range(20):
        if send(f"warm-up {attempt}", timeout=2) is not None:
            break
    else:
        fail("no chat message reached bob's watch in 40 s")
    idle = []
    for index in range(50):
        latency = send(f"idle {index}")
        if latency is None:
            fail(f"idle message {index} did not reach bob in 30 s")
        idle.append(latency)

    # Given up on at 2 MiB/s (and 5 minutes more): the file would be stuck, not slow.
    limit = 300 + os.path.getsize(payload) / (2 << 20)
    start = time.monotonic()
    transfer = node(1, "send-file", "bob", payload, "--wait", "--json", "--timeout", str(int(limit)),
                    stdout=subprocess.PIPE)
    acknowledged = {}

    def read_transfer():
        line = transfer.stdout.readline()
        acknowledged["at"] = time.monotonic()
        acknowledged["ack"] = json.loads(line) if line.strip() else None
        transfer.stdout.read()
        transfer.wait()
        acknowledged["exited"] = time.monotonic()

    threading.Thread(target=read_transfer, daemon=True).start()
    while "at" not in acknowledged:
        next_event(time.monotonic() + 0.01)
        if time.monotonic() - start > limit:
            fail(f"send-file had not written its message after {limit:.0f} s")
    if acknowledged["ack"] is None:
        transfer.wait()
        fail(f"send-file printed nothing (exit code {transfer.returncode})")
    file_id = acknowledged["ack"]["file"]
    cpu_start = cpu_seconds()
    # Chat during the transfer: one message after another, 20 ms apart, until bob holds it.
    busy = []
    while file_id not in complete and "exited" not in acknowledged:
        latency = send(f"busy {len(busy)}", timeout=120)
        if latency is None:
            fail(f"message busy {len(busy)} did not reach bob in 120 s during the transfer")
        busy.append(latency)
        if time.monotonic() - start > limit:
            fail(f"bob did not hold the file {limit:.0f} s after send-file started")
        if file_id not in complete:
            time.sleep(0.02)
    deadline = time.monotonic() + 60
    while file_id not in complete and time.monotonic() < deadline:
        next_event(deadline)
    cpu = [after - before for before, after in zip(cpu_start, cpu_seconds())]
    while "exited" not in acknowledged and time.monotonic() < deadline:
        time.sleep(0.01)
    if file_id not in complete:
        fail("bob's watch never said the file was complete")
    if "exited" not in acknowledged:
        fail("send-file --wait had not returned 60 s after bob held the file")
    if transfer.returncode != 0:
        fail(f"send-file --wait exited with {transfer.returncode}")
    print(json.dumps({
        "file": file_id,
        "import": acknowledged["at"] - start,
        "transfer": complete[file_id] - acknowledged["at"],
        "waited": acknowledged["exited"] - acknowledged["at"],
        "idle": sorted(idle),
        "busy": sorted(busy),
        "cpu": cpu,
    }))
finally:
    for child in children:
        if child.poll() is None:
            child.terminate()
    for child in children:
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
PY
    )
    local file_id saved
    file_id=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["file"])' "$figures")
    mkdir -p "$work/saved"
    saved=$(cli 2 save "$file_id" "$work/saved/" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["path"])')
    local check
    check=$(sha256sum "$saved" | cut -d' ' -f1)
    [[ $check == "$digest" ]] || { echo "lan-file: bob saved a file whose SHA-256 is $check, not the source's $digest" >&2; exit 1; }
    rm -rf "$work/saved"
    raw_copy "$tag" raw_after
    lan_teardown
    rm -rf "$work/$tag-h1" "$work/$tag-h2"

    python3 - "$shape" "$mib" "$raw_before" "$raw_after" "$raw_link" "$load" "$figures" "$crypto_ceiling" <<'PY'
import json, os, sys
shape, mib = sys.argv[1], int(sys.argv[2])
before, after, link = (mib / float(seconds) for seconds in sys.argv[3:6])
load, figures = sys.argv[6], json.loads(sys.argv[7])
crypto = float(sys.argv[8]) if sys.argv[8] else None
def p(values, q):
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")
rate, ceiling = mib / figures["transfer"], max(before, after)
label = {"veth": "veth (unshaped)", "gigabit": "gigabit (tbf 1 Gbit/s)"}[shape]
print(f"lan file {mib:4d} MiB, {label}: node to node {rate:7.1f} MiB/s ({figures['transfer']:.1f} s)   "
      f"ceiling raw TCP copy to a file {ceiling:7.1f} MiB/s ({before:.1f} before, {after:.1f} after; "
      f"the link alone {link:.1f})   ratio {rate / ceiling:.2f}")
if crypto:
    print(f"  the protocol's per-byte cryptography allows at most {crypto:.0f} MiB/s on these cores: "
          f"{min(1.0, crypto / ceiling):.2f} of this raw copy at best")
print(f"  send-file encrypted it into the store in {figures['import']:.1f} s ({mib / figures['import']:.0f} MiB/s) "
      f"before its message; --wait returned {figures['waited']:.1f} s after the message; the saved copy's SHA-256 matches")
alice, bob = figures["cpu"]
print(f"  CPU during the transfer: alice {alice:.1f} s, bob {bob:.1f} s ({alice / mib * 1000:.1f} and "
      f"{bob / mib * 1000:.1f} ms per MiB); load average {load} at the start, {os.cpu_count()} cores")
busy, idle = figures["busy"], figures["idle"]
print(f"  chat latency during the transfer  p50 {p(busy, 0.5):6.2f} ms  p99 {p(busy, 0.99):6.2f} ms  "
      f"max {busy[-1] if busy else float('nan'):6.2f} ms ({len(busy)} msgs)   idle p50 {p(idle, 0.5):6.2f} ms "
      f"p99 {p(idle, 0.99):6.2f} ms")
PY
}

run=0
for shape in $shapes; do
    run=$((run + 1))
    one_run "lf$$r$run" "$shape"
done
