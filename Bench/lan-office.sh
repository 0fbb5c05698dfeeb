#!/usr/bin/env bash
# An office at rest: NODES `confab up` processes (default flags but the subnet's beacon) on
# one namespace LAN, strangers to one another, nothing on this machine's real interfaces.
# Once they have settled (SETTLE seconds), for WINDOW seconds: CPU per node per second (from
# /proc, user + system), resident memory, sessions per node (a sample of SAMPLE nodes), and
# then a first message from host 1 to a host it has no session with, until it is stored
# there. With BEFORE=path/to/other/confab the same is measured for that build first, in the
# same run. On this 2-core machine all of it is CPU-bound: the figures are per node.
#
#   Bench/lan-office.sh       (CONFAB=.build/release/confab, BEFORE=, NODES=200, SETTLE=60,
#                              WINDOW=60, SAMPLE=20)
set -euo pipefail
cd "$(dirname "$0")/.."
after=$(realpath "${CONFAB:-.build/release/confab}")
before=${BEFORE:+$(realpath "$BEFORE")}
nodes=${NODES:-200}
settle=${SETTLE:-60}
window=${WINDOW:-60}
sample=${SAMPLE:-20}
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

json() { python3 -c "import json,sys; print(eval(sys.argv[1], {'d': json.load(sys.stdin)}))" "$1"; }

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
    local t0 c0 t1 c1
    t0=$(date +%s.%N)
    c0=$(cpu)
    sleep "$window"
    c1=$(cpu)
    t1=$(date +%s.%N)
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
