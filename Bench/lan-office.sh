#!/usr/bin/env bash
# An office at rest: NODES `confab up` processes (default flags but the subnet's beacon) on
# one namespace LAN, strangers to one another, nothing on this machine's real interfaces.
# Once they have settled (SETTLE seconds), for WINDOW seconds: CPU per node per second (from
# /proc, user + system), resident memory, sessions per node (a sample of SAMPLE nodes), and
# then a first message from host 1 to a host it has no session with, until it is stored
# there. What the nodes did meanwhile is counted on a sample of them (`status --json`'s
# `activity`): beacons received, checked and sent, connections taken and refused, failed
# handshakes. With BEFORE=path/to/other/confab the same is measured for that build first, in the
# same run. On this 2-core machine all of it is CPU-bound: the figures are per node.
# With PROFILE=directory (and `perf` installed) one node in the middle of the LAN is
# sampled during the window, and the functions that took most of its CPU are printed.
#
#   Bench/lan-office.sh       (CONFAB=.build/release/confab, BEFORE=, NODES=200, SETTLE=60,
#                              WINDOW=60, SAMPLE=20, PROFILE=)
set -euo pipefail
cd "$(dirname "$0")/.."
after=$(realpath "${CONFAB:-.build/release/confab}")
before=${BEFORE:+$(realpath "$BEFORE")}
nodes=${NODES:-200}
settle=${SETTLE:-60}
window=${WINDOW:-60}
sample=${SAMPLE:-20}
profile=${PROFILE:-}
subnet=10.238.0
work=$(mktemp -d /tmp/confab-office-bench.XXXXXX)
pids=()
namespaces=()
source Tests/LAN/namespaces.sh
cleanup() {
    lan_teardown
    rm -rf "$work"
}
trap cleanup EXIT
((nodes <= 250)) || { echo "lan-office: at most 250 nodes on one /24" >&2; exit 2; }

json() { python3 -c "import json,sys; print(eval(sys.argv[1], {'d': json.load(sys.stdin), 'json': json}))" "$1"; }

# measure LABEL BINARY: one whole run on a fresh LAN.
measure() {
    local label=$1 confab=$2 tag=o${1:0:1}$$ i
    cli() { local i=$1; shift; NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/$tag-h$i" "$@"; }
    lan_create "$tag" "$subnet" "$nodes" || { echo "lan-office: cannot create namespaces (root?)" >&2; exit 1; }
    for i in $(seq 1 "$nodes"); do cli "$i" init --name "h$i" >/dev/null; done
    local node_pids=()
    for i in $(seq 1 "$nodes"); do
        ip netns exec "${tag}h$i" "$confab" --data "$work/$tag-h$i" up --beacon "$subnet.255" \
            --log-level warning >>"$work/$tag-h$i.log" 2>&1 &
        pids+=("$!")
        node_pids+=("$!")
    done
    sleep "$settle"
    cpu() { # total user+system ticks of the nodes
        local total=0 pid
        for pid in "${node_pids[@]}"; do
            read -r -a f <"/proc/$pid/stat" 2>/dev/null || continue
            total=$((total + f[13] + f[14]))
        done
        echo "$total"
    }
    local t0 c0 t1 c1 perf_pid=""
    if [[ -n $profile ]]; then
        mkdir -p "$profile"
        perf record -q -F 997 -g --call-graph dwarf,16384 -p "${node_pids[$((nodes / 2))]}" \
            -o "$profile/$label.data" -- sleep "$window" >/dev/null 2>&1 &
        perf_pid=$!
    fi
    # activity SUFFIX: each sampled node's counters (`status --json`), one JSON per line.
    local sampled
    sampled=$(seq 1 $(((nodes + sample - 1) / sample)) "$nodes")
    activity() { for i in $sampled; do cli "$i" status --json | json "json.dumps(d.get('activity'))"; done >"$work/$label-activity-$1"; }
    activity 0
    t0=$(date +%s.%N)
    c0=$(cpu)
    sleep "$window"
    c1=$(cpu)
    t1=$(date +%s.%N)
    activity 1
    if [[ -n $perf_pid ]]; then
        wait "$perf_pid" || true
        # Inclusive shares of the node's own functions (and SQLite's and NIO's entry points).
        perf report -i "$profile/$label.data" --children --sort symbol --stdio 2>/dev/null |
            grep -E '^ +[0-9.]+%' | grep -E 'Confab|sqlite3_(step|prepare)|NIOPosix.*(read|write)|getifaddrs' |
            head -40 | cut -c1-160 >"$profile/$label.txt" || true
        echo "$label: where node $((nodes / 2 + 1))'s CPU went: $profile/$label.txt"
    fi
    local rss
    rss=$(for pid in "${node_pids[@]}"; do awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null; done |
        sort -n | python3 -c 'import sys; v=[int(l) for l in sys.stdin]; print(f"{sum(v)/len(v)/1024:.1f} MiB mean, {max(v)/1024:.1f} max")')
    local counts=()
    for i in $(seq 1 $(((nodes + sample - 1) / sample)) "$nodes"); do
        counts+=("$(cli "$i" status --json | json "len(d['sessions'])")")
    done
    local ticks
    ticks=$(getconf CLK_TCK)
    echo "$label: $nodes nodes idle for ${window}s after ${settle}s: CPU $(python3 -c "print(f'{($c1 - $c0) / $ticks / ($t1 - $t0) / $nodes * 1000:.2f}')") ms per node per second; RSS $rss"
    # Per sampled node and second, over the window: where an idle node's work comes from.
    python3 - "$work/$label-activity-0" "$work/$label-activity-1" "$(python3 -c "print($t1 - $t0)")" "$label" <<'PY'
import json, sys
before = [json.loads(l) for l in open(sys.argv[1])]
after = [json.loads(l) for l in open(sys.argv[2])]
seconds, label = float(sys.argv[3]), sys.argv[4]
pairs = [(a, b) for a, b in zip(before, after) if a and b]
if not pairs:
    print(f"{label}: activity not counted by this build")
else:
    rate = lambda k: sum(b[k] - a[k] for a, b in pairs) / len(pairs) / seconds
    print(f"{label}: per node per second: beacons received {rate('beaconsReceived'):.2f}, signatures checked "
          f"{rate('beaconsChecked'):.2f}, repeats dropped unchecked {rate('beaconsRepeated') if 'beaconsRepeated' in pairs[0][1] else 0:.2f}, acted on {rate('beaconsAccepted'):.2f}, sent {rate('beaconsSent'):.3f}; "
          f"connections accepted {rate('connectionsAccepted'):.3f}, refused {rate('connectionsRefused'):.3f}; "
          f"handshakes failed {rate('handshakeFailures'):.3f}; sessions opened {rate('sessionsOpened'):.3f}")
PY
    echo "$label: sessions per node (every $(((nodes + sample - 1) / sample))th node): $(printf '%s\n' "${counts[@]}" | python3 -c 'import sys; c=[int(l) for l in sys.stdin]; print(f"min {min(c)}, mean {sum(c)/len(c):.1f}, max {max(c)}")')"

    # First contact: host 1 writes to a host it has no session with.
    local connected target="" key
    connected=$(cli 1 status --json | json "' '.join(s['peer'] for s in d['sessions'])")
    for i in $(seq "$nodes" -1 2); do
        key=$(cli "$i" whoami --json | json "d['id']")
        if [[ " $connected " != *" $key "* ]]; then
            target=$i
            break
        fi
    done
    if [[ -z $target ]]; then
        echo "$label: host 1 has a session with every host"
    else
        cli 1 peers add "$key" --name target >/dev/null
        local start
        start=$(date +%s.%N)
        cli 1 send target "first contact" >/dev/null
        local deadline=$((SECONDS + 60)) arrived=""
        while ((SECONDS < deadline)); do
            if cli "$target" list --json | grep -q '"first contact"'; then
                arrived=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
                break
            fi
            sleep 0.05
        done
        echo "$label: first message to host $target (no session with host 1): ${arrived:-not arrived in 60} s after confab send started"
    fi
    lan_teardown
}

[[ -n $before ]] && measure before "$before"
measure after "$after"
