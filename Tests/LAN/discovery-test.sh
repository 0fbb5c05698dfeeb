#!/usr/bin/env bash
# Discovery on LANs configured unlike the other tests, with the DEFAULT flags a person runs
# (`confab up`: no --beacon, no --listen, UDP 7460, TCP 7461), each LAN made of network
# namespaces that exist only while this script runs (Tests/LAN/namespaces.sh):
#   1. IPv4 addresses added without a broadcast address: nodes find each other.
#   2. IPv6 only (link-local addresses): discovery, and a conversation delivered and read.
#   3. Dual-stack: one session per pair, not two.
#   4. A node started with no interface but loopback; an interface is added while it runs:
#      peers appear without a restart.
# Nothing is sent on this machine's real interfaces: every node runs inside a namespace.
#
#   Tests/LAN/discovery-test.sh        (CONFAB=path/to/confab)
#
# Needs root (ip netns). Outside CI it skips where namespaces are not permitted; under
# CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/debug/confab}")
work=$(mktemp -d /tmp/confab-discovery.XXXXXX)
pids=()
namespaces=()
passed=0
failed=0


source Tests/LAN/namespaces.sh
cleanup() {
    lan_teardown
    rm -rf "$work"
}
trap cleanup EXIT

LAN_NAME=discovery
source Tests/LAN/harness.sh
on_failure() { for f in "$work"/*.log; do [[ -f $f ]] && { echo "--- $f"; tail -n 15 "$f"; }; done; }



# cli TAG HOST ARGS...: a confab command on host HOST of the LAN TAG.
cli() {
    local tag=$1 i=$2
    shift 2
    NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/$tag-h$i" "$@"
}

# start TAG HOST: `confab up` with every default, in the host's namespace.
start() {
    local tag=$1 i=$2
    [[ -d $work/$tag-h$i ]] || cli "$tag" "$i" init --name "$tag$i" >/dev/null
    ip netns exec "${tag}h$i" "$confab" --data "$work/$tag-h$i" up --log-level debug >>"$work/$tag-h$i.log" 2>&1 &
    pids+=("$!")
}

sessions_of() { cli "$1" "$2" status --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("sessions", [])))' 2>/dev/null || echo 0; }
connected() { [[ $(sessions_of "$1" "$2") -ge ${3:-1} ]]; }
session_addresses() { cli "$1" "$2" status --json | python3 -c 'import json,sys; print(" ".join(s["address"] for s in json.load(sys.stdin)["sessions"]))'; }

# beacon_rounds TAG N HOST...: within 90 s, each HOST has acted on N more beacons from each
# of its peers than when this started (a beacon from a peer moves its lastSeen forward).
beacon_rounds() {
    local tag=$1 rounds=$2 host id seen key all listed
    shift 2
    local -A last=() moved=()
    local deadline=$((SECONDS + 90))
    while ((SECONDS < deadline)); do
        all=1
        for host in "$@"; do
            listed=0
            while read -r id seen; do
                key=$host/$id
                if [[ -v "last[$key]" && ${last[$key]} != "$seen" ]]; then moved[$key]=$((${moved[$key]:-0} + 1)); fi
                last[$key]=$seen
                listed=1
                ((${moved[$key]:-0} >= rounds)) || all=0
            done < <(cli "$tag" "$host" peers --json 2>/dev/null |
                python3 -c 'import json,sys; [print(p["id"], p.get("lastSeen")) for p in json.load(sys.stdin)]' 2>/dev/null)
            ((listed)) || all=0
        done
        ((all)) && return 0
        sleep 0.2
    done
    echo "$LAN_NAME: timed out after 90s waiting for $rounds more beacons from each peer at hosts $*" >&2
    return 1
}

# Milliseconds since the epoch, for the time from start to a session.
now_ms() { date +%s%3N; }

# --- 1. IPv4 without a broadcast address -------------------------------------------------
if ! lan_create dn 10.233.0 2 nobroadcast; then
    if [[ "${CI:-}" == "true" ]]; then
        echo "discovery: cannot create network namespaces (need root and iproute2)" >&2
        exit 1
    fi
    log "skipped: cannot create network namespaces here (need root and iproute2)"
    exit 0
fi
begin=$(now_ms)
start dn 1
start dn 2
check "IPv4 without a broadcast address: the nodes find each other with no --beacon" wait_for 20 "a session" connected dn 1
log "  session after $(($(now_ms) - begin)) ms (both nodes started at once)"
check "  …over IPv4, at the computed broadcast address (10.233.0.255)" \
    grep -q '10.233.0.255:7460 on eth0' "$work/dn-h1.log"
check "  …and the session is IPv4" bash -c "[[ '$(session_addresses dn 1)' == 10.233.0.2:* ]]"
lan_teardown

# --- 2. IPv6 only: link-local addresses ---------------------------------------------------
lan_create d6 10.234.0 2 ipv6only
begin=$(now_ms)
start d6 1
start d6 2
check "IPv6 only: the nodes find each other over link-local multicast" wait_for 20 "a session" connected d6 1
log "  session after $(($(now_ms) - begin)) ms"
check "  …and the session is IPv6 link-local, with its interface" \
    bash -c "[[ '$(session_addresses d6 1)' == '[fe80::'*'%eth0]:'* ]]"
conversation=$(cli d6 1 new d62 --message "over IPv6" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
has_message() { cli d6 2 history "$conversation" --json --no-mark-read 2>/dev/null | grep -q '"over IPv6"'; }
check "  a message reaches the other node" wait_for 15 "the message" has_message
status_is() { cli d6 1 history "$conversation" --json --no-mark-read | python3 -c "import json,sys; m=[x for x in json.load(sys.stdin) if x.get('text')=='over IPv6']; sys.exit(0 if m and m[0].get('status')=='$1' else 1)"; }
check "  …shows delivered" wait_for 15 "delivered" status_is delivered
cli d6 2 history "$conversation" >/dev/null
check "  …and read once the other side opened it" wait_for 15 "read" status_is read
lan_teardown

# --- 3. Dual-stack: one session per pair --------------------------------------------------
lan_create dd 10.235.0 3 dual
for i in 1 2 3; do start dd "$i"; done
check "dual-stack: every node meets both others" wait_for 20 "two sessions at host1" bash -c "[[ \$(NO_COLOR=1 ip netns exec ddh1 '$confab' --data '$work/dd-h1' status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"sessions\"]))') == 2 ]]"
# Beacons over both families keep arriving after the sessions open, and could open a second
# one. Once every node has handled two more rounds from each peer (each beacon it acts on
# moves that peer's lastSeen), the check below sees what they did.
check "  …and every node goes on hearing each peer's beacons" beacon_rounds dd 2 1 2 3
one_each() { for i in 1 2 3; do [[ $(sessions_of dd "$i") == 2 ]] || return 1; done; }
check "  …with one session per pair, not one per family" one_each
lan_teardown

# --- 4. An interface that appears while the node runs -------------------------------------
lan_create dl 10.236.0 1 nobroadcast
ip netns add dlh2
namespaces+=(dlh2)
ip netns exec dlh2 ip link set lo up
start dl 1
cli dl 2 init --name dl2 >/dev/null
ip netns exec dlh2 "$confab" --data "$work/dl-h2" up --log-level debug >>"$work/dl-h2.log" 2>&1 &
pids+=("$!")
wait_for 10 "the warning" grep -q 'no interface to send beacons on' "$work/dl-h2.log" || true
check "a node with only loopback says it has no interface to beacon on" \
    grep -q 'no interface to send beacons on' "$work/dl-h2.log"
sleep 1
begin=$(now_ms)
ip link add e2dl netns dlh2 type veth peer name p2dl netns dlbr
ip netns exec dlh2 ip link set e2dl name eth0
lan_address dlh2 10.236.0.2 10.236.0.255 nobroadcast
ip netns exec dlh2 ip link set eth0 up
ip netns exec dlbr ip link set p2dl master br0
ip netns exec dlbr ip link set p2dl up
check "an interface added to a running node: its peer appears without a restart" wait_for 20 "a session" connected dl 2
log "  session $(($(now_ms) - begin)) ms after the interface came up"
# The peer's beacons may bring the session before the node reads its interfaces again
# (every 2 s); the node must still notice and beacon on the new network.
check "  …and the node noticed the new network within seconds" \
    wait_for 5 "the network change" grep -q 'network changed: beacons now to 10.236.0.255:7460 on eth0' "$work/dl-h2.log"
lan_teardown

echo "discovery: $passed passed, $failed failed"
[[ $failed == 0 ]]
