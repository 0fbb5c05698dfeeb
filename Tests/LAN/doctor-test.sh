#!/usr/bin/env bash
# `confab doctor` on a LAN of network namespaces (Tests/LAN/namespaces.sh: a bridge and 3
# hosts on the private test subnet 10.232.0.0/24 that exists only inside namespaces this
# script creates), with real `confab up` processes on default discovery (no --beacon: the
# targets come from the hosts' interfaces). In each set-up the doctor's --json must name
# the cause:
#   (d) a healthy pair: with the node running the peer is connected; without it the peer is
#       heard and answers the probe; exit 0;
#   (a) peers on another network key: counted, named, and the probe's handshake says so;
#   (b) UDP 7460 dropped by a firewall rule inside the doctor's host: the rule is named;
#   (c) a namespace with only loopback: no interface to beacon on; exit 1.
# Nothing is sent on this machine's real interfaces.
#
#   Tests/LAN/doctor-test.sh            (CONFAB=path/to/confab, KEEP_REPORTS=DIR keeps the reports and logs)
#
# Needs root (ip netns) and nft or iptables for (b). Outside CI it skips with a message
# where namespaces (or, for (b), both firewall tools) are missing; under CI=true that is a
# failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/debug/confab}")
tag=cd$$
subnet=10.232.0
work=$(mktemp -d /tmp/confab-doctor.XXXXXX)
pids=()
namespaces=()
passed=0
failed=0
started=$SECONDS


cleanup() {
    if [[ -n "${KEEP_REPORTS:-}" ]]; then mkdir -p "$KEEP_REPORTS" && cp "$work"/*.json "$work"/*.txt "$work"/*.log "$KEEP_REPORTS"/ 2>/dev/null || true; fi
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 0.3
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    if declare -F lan_restore_neighbours >/dev/null; then lan_restore_neighbours; fi
    rm -rf "$work"
}
trap cleanup EXIT

LAN_NAME=doctor-test
source Tests/LAN/namespaces.sh
source Tests/LAN/harness.sh
if ! lan_create "$tag" "$subnet" 3; then
    if [[ "${CI:-}" == "true" ]]; then
        echo "doctor-test: cannot create network namespaces (need root and iproute2)" >&2
        exit 1
    fi
    log "skipped: cannot create network namespaces here (need root and iproute2)"
    exit 0
fi

in_host() { # in_host HOST COMMAND...: HOST is a number (a LAN host) or a namespace name
    local ns=$1
    shift
    [[ $ns =~ ^[0-9]+$ ]] && ns="${tag}h$ns"
    NO_COLOR=1 ip netns exec "$ns" "$@"
}
cli() { local host=$1 data=$2; shift 2; in_host "$host" "$confab" --data "$work/$data" "$@"; }

declare -A node_pid
start_node() { # start_node HOST DATA [up options...]
    local host=$1 data=$2
    shift 2
    local log_file="$work/$data.log"
    : >"$log_file"
    # Not through in_host: $! must be the node itself (ip netns exec execs it), not a subshell.
    NO_COLOR=1 ip netns exec "${tag}h$host" "$confab" --data "$work/$data" up --log-level debug "$@" \
        >>"$log_file" 2>&1 &
    node_pid[$data]=$!
    pids+=("$!")
    wait_for 15 "$data's node to start" grep -q "discovery on UDP" "$log_file"
}
stop_node() { # stop_node DATA
    local pid=${node_pid[$1]}
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}



# doctor HOST DATA NAME [options...]: runs `doctor --json` and keeps its output in
# $work/NAME.json and its exit status in $work/NAME.status.
doctor() {
    local host=$1 data=$2 name=$3
    shift 3
    local status=0
    cli "$host" "$data" doctor --json --seconds 3 "$@" >"$work/$name.json" 2>"$work/$name.err" || status=$?
    echo "$status" >"$work/$name.status"
}
# report NAME PYTHON-EXPRESSION: true when the expression holds of the report `r` (with
# `codes`, the set of finding codes, and `finding(code)`); on failure the report is shown.
report() {
    local name=$1 expression=$2
    if python3 - "$work/$name.json" "$expression" <<'EOF'; then return 0; fi
import json, sys
r = json.load(open(sys.argv[1]))
codes = {f["code"] for f in r["findings"]}
finding = lambda code: next((f for f in r["findings"] if f["code"] == code), None)
sys.exit(0 if eval(" ".join(line.strip() for line in sys.argv[2].splitlines())) else 1)
EOF
    echo "doctor-test: $name did not satisfy: $expression" >&2
    python3 -m json.tool "$work/$name.json" >&2 || cat "$work/$name.json" "$work/$name.err" >&2
    return 1
}
exit_status() { [[ $(cat "$work/$1.status") == "$2" ]] || { echo "doctor-test: $1 exited $(cat "$work/$1.status"), not $2" >&2; return 1; }; }

no_tentative_addresses() { [[ -z $(in_host "$1" ip -6 addr show tentative) ]]; }
connected() { cli "$1" "$2" peers --json | python3 -c 'import json,sys; sys.exit(0 if any(p.get("connected") for p in json.load(sys.stdin)) else 1)'; }

for i in 1 2 3; do wait_for 10 "host$i's IPv6 addresses to be usable" no_tentative_addresses "$i"; done
cli 1 alice init --name alice >/dev/null
cli 2 bob init --name bob >/dev/null
cli 3 carol init --name carol >/dev/null
bob_id=$(cli 2 bob whoami --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
carol_id=$(cli 3 carol whoami --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

# (d) A healthy pair.
start_node 2 bob
start_node 1 alice
wait_for 20 "alice and bob to connect" connected 1 alice
doctor 1 alice running
check "(d) with alice's node running, bob is connected and the ports are the node's" \
    report running 'r["ok"] and r["node"]["running"] and [p["result"] for p in r["peers"]] == ["connected"]
        and all(p["state"] == "node" for p in r["ports"]) and "node-running" in codes'
check "(d) ... and doctor exits 0" exit_status running 0
stop_node alice
# A fresh bob beacons fast (every 1.5 s): the window hears him whatever his pace was.
stop_node bob
start_node 2 bob
doctor 1 alice healthy
check "(d) without a node, bob is heard by beacon and answers the probe" \
    report healthy "r['ok'] and [n['id'] for n in r['heard']['nodes']] == ['$bob_id']
        and [(p['name'], p['result']) for p in r['peers']] == [('bob', 'ok')] and 'peers-heard' in codes
        and r['ports'][-1]['state'] == 'free' and r['beacons']['mode'] == 'interfaces'
        and any(t['address'] == '$subnet.255:7460' for t in r['beacons']['targets'])"
check "(d) ... our own IPv4 broadcast came back" \
    report healthy "any(e['target'] == '$subnet.255:7460' and e['received'] for e in r['echoes'])"
check "(d) ... and doctor exits 0" exit_status healthy 0
cli 1 alice doctor --seconds 1 >"$work/healthy.txt" 2>&1 || true
check "(d) the text report ends with the result" grep -q "Result: a peer can be reached (exit 0)." "$work/healthy.txt"

# (a) Bob and carol on another network key.
other_key=$(cli 1 alice network new --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
stop_node bob
start_node 2 bob --network-key "$other_key"
start_node 3 carol --network-key "$other_key"
doctor 1 alice other
check "(a) two nodes of another network are counted and named, and nothing works" \
    report other "not r['ok'] and sorted(n['id'] for n in r['heard']['otherNetworks']) == sorted(['$bob_id', '$carol_id'])
        and finding('other-network')['message'].startswith('2 nodes on this LAN use another network key — run \"confab network show\" on both')
        and r['heard']['nodes'] == []"
check "(a) the probe of bob says his node uses another network key" \
    report other "[(p['result'], p.get('failure')) for p in r['peers']] == [('handshake-failed', 'other-network')]
        and 'peer-other-network' in codes"
check "(a) ... and doctor exits 1" exit_status other 1
stop_node carol

# (b) UDP 7460 dropped by a firewall rule in alice's namespace.
stop_node bob
firewall=""
if in_host 1 nft add table inet cdtest 2>/dev/null \
    && in_host 1 nft add chain inet cdtest input '{ type filter hook input priority 0; policy accept; }' \
    && in_host 1 nft add rule inet cdtest input udp dport 7460 drop; then
    firewall="udp dport 7460 drop"
elif in_host 1 iptables -A INPUT -p udp --dport 7460 -j DROP 2>/dev/null; then
    firewall="--dport 7460 -j DROP"
fi
if [[ -z $firewall ]]; then
    if [[ "${CI:-}" == "true" ]]; then
        log "FAILED: (b) neither nft nor iptables can add a rule here (make test-deps installs nftables)"
        failed=$((failed + 1))
    else
        log "skipped (b): neither nft nor iptables can add a rule here (apt-get install nftables)"
    fi
else
    start_node 2 bob
    doctor 1 alice firewall
    check "(b) nothing is heard, and the rule that drops UDP 7460 is named as the cause" \
        report firewall "r['heard']['nodes'] == [] and any('$firewall' in rule for rule in r['firewall']['rules'])
            and '$firewall' in finding('firewall')['message']
            and '$firewall' in finding('nothing-heard')['advice'][0]"
    check "(b) ... bob still answers the probe over TCP, so the fallback names his address" \
        report firewall "[p['result'] for p in r['peers']] == ['ok']
            and finding('nothing-heard')['advice'][-1].endswith('confab up --peer $subnet.2:7461')"
    stop_node bob
fi

# (c) A namespace with no usable interface: only loopback.
ip netns add "${tag}lo"
namespaces+=("${tag}lo")
in_host "${tag}lo" ip link set lo up
cli "${tag}lo" dave init --name dave >/dev/null
doctor "${tag}lo" dave lonely
check "(c) only loopback: no interface to beacon on, and doctor exits 1" \
    report lonely "not r['ok'] and r['beacons']['targets'] == [] and finding('no-interface')['severity'] == 'problem'
        and finding('no-interface')['message'] == 'No interface to send beacons on: no interface but loopback is up.'"
check "(c) ... exit status 1" exit_status lonely 1

log "took $((SECONDS - started)) s"
echo "doctor-test: $passed passed, $failed failed"
[[ $failed == 0 ]]
