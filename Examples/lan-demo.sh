#!/usr/bin/env bash
# A delayed delivery through a relay, on a LAN made of network namespaces: a bridge and four
# hosts (alice, bob, carol and a relay) on the private test subnet 10.232.0.0/24 that exists
# only inside the namespaces this script creates. Nodes find each other by broadcast to
# 10.232.0.255. Alice writes to Carol while Carol is away and then leaves; Carol arrives and
# gets the message from the relay; Alice comes back and sees it read. Nothing is sent on this
# machine's real interfaces, and every namespace is deleted at the end.
#
#   Examples/lan-demo.sh            (CONFAB=path/to/confab)
#
# Needs root and iproute2 (ip netns); elsewhere it says "skipped" and exits 0.
set -euo pipefail
confab=$(realpath "${CONFAB:-confab}" 2>/dev/null || command -v confab)
tag=cfd$$
subnet=10.232.0
work=$(mktemp -d /tmp/confab-lan-demo.XXXXXX)
names=(alice bob carol relay)
pids=()
namespaces=()

say() { echo "lan-demo: $*"; }

cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

if ! command -v ip >/dev/null || ! ip netns add "${tag}br" 2>/dev/null; then
    say "skipped: cannot create network namespaces here (needs root and iproute2)"
    exit 0
fi
namespaces+=("${tag}br")
ip netns exec "${tag}br" ip link set lo up
ip netns exec "${tag}br" ip link add br0 type bridge
ip netns exec "${tag}br" ip link set br0 up
for i in 1 2 3 4; do
    ns="${tag}h$i"
    ip netns add "$ns"
    namespaces+=("$ns")
    ip link add "eth$i$tag" netns "$ns" type veth peer name "p$i$tag" netns "${tag}br"
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip link set "eth$i$tag" name eth0
    ip netns exec "$ns" ip addr add "$subnet.$i/24" broadcast "$subnet.255" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "${tag}br" ip link set "p$i$tag" master br0
    ip netns exec "${tag}br" ip link set "p$i$tag" up
done

host() { # host NAME: its number
    for i in "${!names[@]}"; do
        if [[ ${names[$i]} == "$1" ]]; then echo $((i + 1)); fi
    done
}
cli() { # cli NAME ARGS...
    local name=$1
    shift
    NO_COLOR=1 ip netns exec "${tag}h$(host "$name")" "$confab" --data "$work/$name" "$@"
}
declare -A running
start() { # start NAME [up|relay]
    local name=$1 command=${2:-up} i
    i=$(host "$name")
    ip netns exec "${tag}h$i" "$confab" --data "$work/$name" "$command" --listen "$subnet.$i:7461" \
        --discovery-port 7460 --beacon "$subnet.255:7460" >>"$work/$name.log" 2>&1 &
    running[$name]=$!
    pids+=("$!")
    wait_for 10 "$name's node" test -S "$work/$name/control.sock"
}
stop() {
    kill -TERM "${running[$1]}"
    wait "${running[$1]}" || true
}
wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@"; do
        if ((SECONDS >= deadline)); then
            say "timed out waiting for $what" >&2
            return 1
        fi
        sleep 0.2
    done
}
status_of() { # status_of NAME PEER: the status of NAME's latest message to PEER
    cli "$1" history "$2" --json --no-mark-read | python3 -c \
        'import json,sys; m=[x for x in json.load(sys.stdin) if x.get("mine")]; print(m[-1]["status"] if m else "")'
}
has_status() { [[ $(status_of "$1" "$2") == "$3" ]]; }
has_text() { cli "$1" history "$2" --json --no-mark-read 2>/dev/null | grep -q "$3"; }

for name in alice bob carol; do cli "$name" init --name "$name" >/dev/null; done
key() { cli "$1" whoami --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
cli alice peers add "$(key carol)" --name carol >/dev/null
cli alice peers add "$(key bob)" --name bob >/dev/null
cli carol peers add "$(key alice)" --name alice >/dev/null  # keys exchanged by hand earlier

start relay relay
# Everyone can compute the default network's key, so a node offers a relay its
# conversations only once its person added the relay's key (or verified it).
for name in alice carol; do cli "$name" peers add "$(key relay)" --name relay >/dev/null; done
start alice
start bob
say "relay, alice and bob are up on $subnet.0/24; carol is away"
cli alice send bob "lunch?" >/dev/null
wait_for 20 "alice's message to bob delivered" has_status alice bob delivered
say "alice -> bob: $(status_of alice bob) (both online)"

cli alice send carol "Dinner at 8? (sent while you were away)" >/dev/null
wait_for 20 "the relay to hold alice's message" has_status alice carol sent
say "alice -> carol: $(status_of alice carol) (only the relay holds it)"
stop alice
say "alice has left"

start carol
wait_for 30 "carol to get alice's message from the relay" has_text carol alice "Dinner at 8"
say "carol got it from the relay while alice was away:"
cli carol history alice | sed 's/^/    /'
wait_for 10 "carol's receipts to reach the relay" bash -c \
    "[[ \$(NO_COLOR=1 ip netns exec ${tag}h$(host carol) $confab --data $work/carol status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"outbox\"])') == 0 ]]"
stop carol
say "carol read it and left"

start alice
wait_for 30 "alice to see her message read" has_status alice carol read
say "alice is back: alice -> carol: $(status_of alice carol), learned from the relay"
