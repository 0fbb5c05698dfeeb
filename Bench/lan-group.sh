#!/usr/bin/env bash
# A group on an office LAN, measured: N real `confab up` nodes in network namespaces on one
# bridge, finding each other by subnet broadcast; one group of all N; every node pipes M
# lines into `confab send CONV --lines` at the same moment. Prints the time from the first
# write until every node holds every message (from the stores: the messages' author
# timestamps and each node's receive time), CPU-seconds per distinct entry per node,
# copies received per entry stored, bytes on the wire per entry, peak RSS per node (and the
# memory private to a node at the end, without the pages of the binary and libraries that
# all nodes share), the store commits per node (writes per commit, and the share that
# waited for fsync), and the CPU a node spends in the IDLE seconds after converging
# (default 5; receipts may still move).
#
#   Bench/lan-group.sh [N] [M]      (CONFAB=path/to/confab, default the release build; ROOM=1: a room
#                                    of all N rather than a group; LARGE=1: a large group even of 64
#                                    or fewer, as any of more than 64 is (Protocol.md §19);
#                                    LOG_LEVEL=debug KEEP_LOGS=DIR keeps the nodes' logs and stores)
#
# Needs root (ip netns). Everything is sent inside namespaces this script creates, on the
# private test subnet 10.232.0.0/24; nothing reaches this machine's real interfaces.
set -euo pipefail
cd "$(dirname "$0")/.."
confab=$(realpath "${CONFAB:-.build/release/confab}")
nodes=${1:-20}
lines=${2:-20}
tag=cg$$
subnet=10.232.0
work=$(mktemp -d /tmp/confab-group.XXXXXX)
pids=()
namespaces=()

cleanup() {
    if declare -F lan_stop >/dev/null; then lan_stop "${pids[@]}"; fi
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    if declare -F lan_restore_neighbours >/dev/null; then lan_restore_neighbours; fi
    # KEEP_LOGS=DIR keeps every node's log and data directory there, to see why a run went
    # as it did (each stored entry has its author's timestamp and the time it was received).
    if [[ -n "${KEEP_LOGS:-}" ]]; then
        mkdir -p "$KEEP_LOGS" && cp "$work"/h*.log "$KEEP_LOGS"/ 2>/dev/null || true
        for dir in "$work"/h*/; do cp -r "$dir" "$KEEP_LOGS"/ 2>/dev/null || true; done
    fi
    rm -rf "$work"
}
trap cleanup EXIT

source Tests/LAN/namespaces.sh
if ! lan_create "$tag" "$subnet" "$nodes"; then
    echo "lan-group: skipped, cannot create network namespaces here (needs root and iproute2)"
    exit 0
fi

cli() { local i=$1; shift; NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/h$i" "$@"; }
# from_stores wait|times CONVERSATION [EXPECTED], read by one process for every node's store:
#   wait: polls every 0.1 s until each node holds EXPECTED messages of it (exit 0), or for
#   300 s (exit 1, printing each node's count). One process for the whole wait: a poll that
#   started a process (or two) per pass spent a tenth of a CPU-second each time, through a
#   Python version shim, on the two cores the converging nodes need;
#   times: seconds since 1970 of the first and the last message written (their authors'
#   timestamps) and of the last one stored by any node (its receive time).
from_stores() {
    python3 - "$work" "$nodes" "$1" "$2" "${3:-0}" <<'PY'
import sqlite3, sys, time
work, n, what, conversation = sys.argv[1], int(sys.argv[2]), sys.argv[3], bytes.fromhex(sys.argv[4])
expected = int(sys.argv[5])
def each(sql):
    rows = []
    for i in range(1, n + 1):
        db = sqlite3.connect(f"file:{work}/h{i}/confab.sqlite?mode=ro", uri=True, timeout=5)
        rows.append(db.execute(sql, (conversation,)).fetchone())
        db.close()
    return rows
if what == "wait":
    deadline = time.monotonic() + 300
    while True:
        counts = [row[0] for row in each("SELECT count(*) FROM message WHERE conversationId = ?")]
        if all(count >= expected for count in counts):
            sys.exit(0)
        if time.monotonic() > deadline:
            print(*counts)
            sys.exit(1)
        time.sleep(0.1)
rows = each("""SELECT min(e.timestamp), max(e.timestamp), max(e.receivedAt)
               FROM entry e JOIN message m USING (conversationId, author, seq) WHERE e.conversationId = ?""")
print(min(r[0] for r in rows) / 1000, max(r[1] for r in rows) / 1000, max(r[2] for r in rows) / 1000)
PY
}
cpu_seconds() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }
# read_cpu ARRAY: every node's CPU-seconds so far into ARRAY[1..N], in one quick pass.
read_cpu() {
    local -n into=$1
    local i
    for i in $(seq 1 "$nodes"); do into[$i]=$(cpu_seconds "${pids[$((i - 1))]}"); done
}
wire_bytes() { ip netns exec "${tag}h$1" awk '/eth0:/ {print $2 + $10}' /proc/net/dev; }

for i in $(seq 1 "$nodes"); do cli "$i" init --name "host$i" >/dev/null; done
ls "$work/h1" | grep -q sqlite || { echo "lan-group: no store file in $work/h1" >&2; exit 1; }
for i in $(seq 1 "$nodes"); do
    ip netns exec "${tag}h$i" "$confab" --data "$work/h$i" up --listen "$subnet.$i:7461" \
        --discovery-port 7460 --log-level "${LOG_LEVEL:-warning}" >>"$work/h$i.log" 2>&1 &
    pids+=("$!")
done
connected() { cli "$1" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("sessions", [])))'; }
# Host 1 starts the group with every other host's key, added as a peer (a person would have
# them from `confab peers` or a colleague): on a LAN of more than 16 nodes it does not meet
# every stranger by itself (Protocol.md §10.6, sessions by need). The others need only be
# reachable: the group reaches them through anyone who holds it, and then they seek each
# other as fellow members.
# ROOM=1: a room of all N instead (Protocol.md §18): nobody adds anyone, every host joins
# #bench, and the room goes over the sessions kept by need and those its beacon tags seek.
if [[ -z ${ROOM:-} ]]; then
    for i in $(seq 2 "$nodes"); do
        key=$(cli "$i" whoami --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
        cli 1 peers add "$key" --name "host$i" >/dev/null
    done
fi
mesh_start=$SECONDS
deadline=$((SECONDS + 300))
for i in $(seq 1 "$nodes"); do
    until [[ $(connected "$i") -ge 1 ]]; do
        ((SECONDS < deadline)) || { echo "lan-group: host$i has no session after 300 s" >&2; exit 1; }
        sleep 0.5
    done
done
sessions=0
for i in $(seq 1 "$nodes"); do sessions=$((sessions + $(connected "$i"))); done
echo "lan-group: $nodes nodes up, each with a session in $((SECONDS - mesh_start)) s; $((sessions / 2)) sessions of $((nodes * (nodes - 1) / 2)) possible"
if [[ -n ${ROOM:-} ]]; then
    for i in $(seq 1 "$nodes"); do
        conversation=$(cli "$i" join bench --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["conversation"])')
    done
else
    others=$(seq -s ' ' 2 "$nodes" | sed 's/[0-9]\+/host&/g')
    conversation=$(cli 1 new ${LARGE:+--large} $others --title group --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
fi
has_group() { python3 - "$work/h$1/confab.sqlite" "$conversation" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=5)
print(db.execute("SELECT count(*) FROM conversation WHERE id = ?", (bytes.fromhex(sys.argv[2]),)).fetchone()[0])
PY
}
for i in $(seq 1 "$nodes"); do until [[ $(has_group "$i") == 1 ]]; do sleep 0.2; done; done
# Wire counters take a while to read on 20 hosts: read before the CPU, which is read last,
# so that the nodes' idle CPU meanwhile is not counted against the entries.
declare -a cpu_before wire_before
for i in $(seq 1 "$nodes"); do wire_before[$i]=$(wire_bytes "$i"); done
read_cpu cpu_before

expected=$((nodes * lines))
writers=()
for i in $(seq 1 "$nodes"); do
    seq "$lines" | sed "s/^/host$i line /" | cli "$i" send "$conversation" --lines >/dev/null &
    writers+=("$!")
done
for w in "${writers[@]}"; do wait "$w"; done
# Polled until every node holds every message; when that happened comes from the stores
# below, not from the poll, which only notices it some time later.
if ! held=$(from_stores wait "$conversation" "$expected"); then
    echo "lan-group: no convergence in 300 s; messages held per node (of $expected): $held" >&2
    exit 1
fi

# CPU is read on every node at once as soon as the poll sees them converged (not while the
# wire counters and the status of each are read below, which takes seconds); then what the
# nodes spend over the next IDLE seconds.
declare -a cpu_after idle_before
read_cpu cpu_after
read -r first_write last_write last_stored < <(from_stores times "$conversation")
wire=0
for i in $(seq 1 "$nodes"); do wire=$((wire + $(wire_bytes "$i") - ${wire_before[$i]})); done
read_cpu idle_before
idle_seconds=${IDLE:-5}
sleep "$idle_seconds"
declare -a idle_after
read_cpu idle_after
cpu=0; idle=0; rss_max=0; private_max=0; received=0; duplicates=0; stored=0; transactions=0; writes=0; synced=0
for i in $(seq 1 "$nodes"); do
    pid=${pids[$((i - 1))]}
    cpu=$(python3 -c "print($cpu + ${cpu_after[$i]} - ${cpu_before[$i]})")
    idle=$(python3 -c "print($idle + ${idle_after[$i]} - ${idle_before[$i]})")
    rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    ((rss > rss_max)) && rss_max=$rss
    # RSS counts the binary's and the Swift libraries' pages, which every node shares (about
    # 38 MiB of a 100-node run's 81): a node's own memory is what is private to it.
    private=$(awk '/^Private_(Clean|Dirty):/ {sum += $2} END {print sum + 0}' "/proc/$pid/smaps_rollup")
    ((private > private_max)) && private_max=$private
    read -r r d s t w y < <(cli "$i" status --json | python3 -c '
import json, sys
status = json.load(sys.stdin)
t, c = status["traffic"], status["commits"]
print(t["entriesReceived"], t["duplicatesReceived"], t["entriesStored"], c["transactions"], c["writes"], c["synced"])')
    received=$((received + r)); duplicates=$((duplicates + d)); stored=$((stored + s))
    transactions=$((transactions + t)); writes=$((writes + w)); synced=$((synced + y))
done
python3 - "$nodes" "$lines" "$first_write" "$last_write" "$last_stored" "$cpu" "$wire" "$rss_max" "$received" "$duplicates" "$stored" \
    "$transactions" "$writes" "$synced" "$idle" "$idle_seconds" "$private_max" <<'PY'
import sys
n, m = int(sys.argv[1]), int(sys.argv[2])
start, written, converged, cpu, wire = map(float, sys.argv[3:8])
rss, received, duplicates, stored, transactions, writes, synced = map(int, sys.argv[8:15])
idle, idle_seconds = float(sys.argv[15]), float(sys.argv[16])
private = int(sys.argv[17])
distinct = n * m
entries = stored / n  # distinct entries a node stored: the messages, receipts, the create entry
print(f"lan {'room' if __import__('os').environ.get('ROOM') else 'group'}: {n} nodes, {m} lines each, {distinct} messages ({entries:.0f} distinct entries per node)")
print(f"  last message written     {written - start:8.2f} s after the first")
print(f"  every node holds all     {converged - start:8.2f} s after the first write ({converged - written:.2f} s after the last)")
print(f"  CPU per distinct entry per node {cpu / max(stored, 1) * 1000:8.3f} ms   ({cpu:.1f} CPU-s in all)")
print(f"  entries received {received}, copies already held {duplicates}, stored {stored}: {duplicates / max(stored, 1):.2f} copies per entry stored")
print(f"  CPU per node after it     {idle / n / idle_seconds * 1000:8.1f} ms a second   ({idle:.2f} CPU-s in all over {idle_seconds:.0f} s)")
print(f"  wire bytes per distinct entry per node {wire / max(stored, 1):8.0f}")
print(f"  peak RSS per node (max) {rss / 1024:8.1f} MiB   (private to a node at the end, max: {private / 1024:.1f} MiB)")
print(f"  store commits per node   {transactions / n:8.0f}   ({writes / max(transactions, 1):.2f} writes each; "
      f"{synced / max(transactions, 1) * 100:.0f}% waited for fsync)")
PY
