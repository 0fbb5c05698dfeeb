#!/usr/bin/env bash
# Discovery, measured as users run it: release `confab up` processes with default flags in
# network namespaces (Tests/LAN/namespaces.sh), nothing on this machine's real interfaces.
#
#   1. Time from a node starting to its session with a node already up, over IPv4 only and
#      over IPv6 only (link-local): RUNS runs each, median and worst. Target: 0.2 s.
#   2. Beacon traffic on an idle LAN of NODES nodes (dual-stack): a passive listener on one
#      host counts every beacon datagram for WINDOW seconds once the nodes have settled to
#      their slow pace, beside what the same beacons would weigh at Syncthing's 30 s and
#      Tox's 10 s intervals. Also how long the NODES nodes took to meet each other.
#
#   Bench/lan-discovery.sh            (CONFAB=…, RUNS=7, NODES=50, WINDOW=60)
set -euo pipefail
cd "$(dirname "$0")/.."
confab=$(realpath "${CONFAB:-.build/release/confab}")
runs=${RUNS:-7}
nodes=${NODES:-50}
window=${WINDOW:-60}
work=$(mktemp -d /tmp/confab-discovery-bench.XXXXXX)
pids=()
namespaces=()

source Tests/LAN/namespaces.sh
cleanup() {
    lan_teardown
    rm -rf "$work"
}
trap cleanup EXIT

cli() { local tag=$1 i=$2; shift 2; NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/$tag-h$i" "$@"; }
up() { # up TAG HOST
    ip netns exec "${1}h$2" "$confab" --data "$work/$1-h$2" up --log-level warning >>"$work/$1-h$2.log" 2>&1 &
    pids+=("$!")
}
running() { cli "$1" "$2" status --json 2>/dev/null | grep -q '"running" *: *true'; }

# time_to_session TAG MODE: seconds from starting host 2's node to host 1 seeing it online.
time_to_session() {
    local tag=$1 mode=$2
    lan_create "$tag" 10.237.0 2 "$mode" || return 1
    for i in 1 2; do cli "$tag" "$i" init --name "$tag$i" >/dev/null; done
    up "$tag" 1
    until running "$tag" 1; do sleep 0.05; done
    local events=$work/$tag-events
    cli "$tag" 1 watch --json >"$events" &
    pids+=("$!")
    sleep 0.5
    local t0
    t0=$(date +%s.%N)
    up "$tag" 2
    python3 - "$events" "$t0" <<'PY' || true
import sys, time
# Host 2 started at t0: the wall time of host 1's first peer_online event, less t0.
t0 = float(sys.argv[2])
while True:
    for line in open(sys.argv[1]):
        if '"peer_online"' in line:
            print(f"{time.time() - t0:.3f}")
            sys.exit(0)
    if time.time() - t0 > 20:
        print("timeout"); sys.exit(1)
    time.sleep(0.002)
PY
    lan_teardown
}

if ! ip netns add "probe$$" 2>/dev/null; then
    echo "lan-discovery: skipped, cannot create network namespaces here (needs root and iproute2)"
    exit 0
fi
ip netns del "probe$$"

for family in ipv4:nobroadcast ipv6:ipv6only; do
    name=${family%%:*}
    mode=${family#*:}
    times=()
    for r in $(seq 1 "$runs"); do times+=("$(time_to_session "t${name:3:1}$r" "$mode" | tail -n 1)"); done
    python3 - "$name" "${times[@]}" <<'PY'
import statistics, sys
name, values = sys.argv[1], sys.argv[2:]
ok = sorted(float(v) for v in values if v != "timeout")
failed = len(values) - len(ok)
if not ok:
    print(f"lan discovery: {name}: no session in any run"); sys.exit(0)
print(f"lan discovery: {name:4} start to session  median {statistics.median(ok)*1000:6.0f} ms  worst {ok[-1]*1000:6.0f} ms"
      f"  ({len(ok)} runs{', %d timed out' % failed if failed else ''}; target 200 ms)")
PY
done

# --- an idle LAN -------------------------------------------------------------------------
tag=bl$$
lan_create "$tag" 10.238.0 "$nodes" dual
for i in $(seq 1 "$nodes"); do cli "$tag" "$i" init --name "n$i" >/dev/null; done
began=$SECONDS
for i in $(seq 1 "$nodes"); do up "$tag" "$i"; done
sessions() { cli "$tag" "$1" status --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("sessions", [])))' 2>/dev/null || echo 0; }
met=""
while ((SECONDS - began < 180)); do
    if [[ $(sessions 1) -ge $((nodes - 1)) ]]; then met=$((SECONDS - began)); break; fi
    sleep 1
done
if [[ -n $met ]]; then
    echo "lan discovery: $nodes nodes started at once: host1 met all others in $met s"
else
    echo "lan discovery: $nodes nodes started at once: host1 met $(sessions 1) of $((nodes - 1)) in 180 s"
fi
# The schedule reaches its slow pace 15 + 3 + 6 + 12 + 24 s after the last change.
settle=$((began + 75 - SECONDS))
((settle > 0)) && sleep "$settle"
ip netns exec "${tag}h1" python3 - "$window" "$nodes" <<'PY'
import socket, struct, sys, time
window, nodes = float(sys.argv[1]), int(sys.argv[2])
def reuse(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
v4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); reuse(v4); v4.bind(("0.0.0.0", 7460))
v6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); reuse(v6)
v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1); v6.bind(("::", 7460))
group = socket.inet_pton(socket.AF_INET6, "ff12::7460") + struct.pack("@I", socket.if_nametoindex("eth0"))
v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, group)
for s in (v4, v6): s.settimeout(0.05)
counts = {"v4": [0, 0], "v6": [0, 0]}
sizes = []
end = time.monotonic() + window
while time.monotonic() < end:
    for name, s, header in (("v4", v4, 28), ("v6", v6, 48)):
        try:
            data = s.recv(2048)
        except socket.timeout:
            continue
        counts[name][0] += 1
        counts[name][1] += len(data) + header
        sizes.append(len(data))
total = sum(c[1] for c in counts.values())
datagrams = sum(c[0] for c in counts.values())
beacon = (sum(sizes) / len(sizes)) if sizes else 0
print(f"lan discovery: idle LAN of {nodes} nodes, dual-stack: {datagrams / window:.2f} beacons/s, "
      f"{total / window:.0f} bytes/s on the wire (IPv4 {counts['v4'][1] / window:.0f}, IPv6 {counts['v6'][1] / window:.0f}); "
      f"beacon {beacon:.0f} bytes + headers")
for label, interval in (("every 30 s (Syncthing's interval)", 30), ("every 10 s (Tox's interval)", 10), ("every 1.5 s (Confab before pacing)", 1.5)):
    per = (beacon + 28) + (beacon + 48)
    print(f"lan discovery:   the same beacons {label}: {nodes * per / interval:.0f} bytes/s")
PY
lan_teardown
