#!/usr/bin/env bash
# A LAN in network namespaces: a bridge in its own namespace and HOSTS hosts joined to it by
# veth pairs, on the private test subnet 10.231.0.0/24 that exists only inside namespaces this
# script creates. Real `confab up` processes discover each other by broadcast to
# 10.231.0.255; one host's link goes down and up while messages are sent, and every host must
# end with the same history. Nothing is sent on this machine's real interfaces.
#
#   Tests/LAN/lan-test.sh            (CONFAB=path/to/confab, HOSTS=3..5)
#
# Needs root (ip netns). Outside CI it skips with a message where namespaces are not
# permitted; under CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/debug/confab}")
hosts=${HOSTS:-3}
tag=cf$$
subnet=10.231.0
work=$(mktemp -d /tmp/confab-lan.XXXXXX)
pids=()
namespaces=()
passed=0
failed=0

LAN_NAME=lan
source Tests/LAN/namespaces.sh
source Tests/LAN/harness.sh
lan_begin "$subnet" "$hosts"

cli() { # cli HOST ARGS...
    local i=$1
    shift
    NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/h$i" "$@"
}

start_node() {
    local i=$1
    ip netns exec "${tag}h$i" "$confab" --data "$work/h$i" up --listen "$subnet.$i:7461" \
        --discovery-port 7460 --beacon "$subnet.255:7460" --log-level debug >>"$work/h$i.log" 2>&1 &
    pids+=("$!")
}



connected_peers() { cli "$1" peers --json | python3 -c 'import json,sys; print(sum(1 for p in json.load(sys.stdin) if p.get("connected")))'; }
all_connected() { for i in $(seq 1 "$hosts"); do [[ $(connected_peers "$i") == $((hosts - 1)) ]] || return 1; done; }
history_of() { cli "$1" history "$2" --json --no-mark-read --limit 1000 | python3 -c 'import json,sys; print("\n".join(m.get("text","?") for m in json.load(sys.stdin)))'; }
same_everywhere() {
    local reference
    reference=$(history_of 1 "$1")
    [[ $(echo "$reference" | grep -c .) == "$2" ]] || return 1
    for i in $(seq 2 "$hosts"); do [[ $(history_of "$i" "$1") == "$reference" ]] || return 1; done
}

for i in $(seq 1 "$hosts"); do cli "$i" init --name "host$i" >/dev/null; done
for i in $(seq 1 "$hosts"); do start_node "$i"; done
check "$hosts hosts discover each other by subnet broadcast" wait_for 30 "full mesh" all_connected

others=$(seq -s ' ' 2 "$hosts" | sed 's/[0-9]\+/host&/g')
conversation=$(cli 1 new $others --title lan --message "hello LAN" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
check "the first message reaches everyone" wait_for 15 "first message" same_everywhere "$conversation" 1

log "taking host2's link down"
ip netns exec "${tag}h2" ip link set eth0 down
for n in 1 2 3; do
    cli 1 send "$conversation" "from host1 during the partition $n" >/dev/null
    cli 2 send "$conversation" "from host2, cut off, $n" >/dev/null
    cli "$hosts" send "$conversation" "from host$hosts during the partition $n" >/dev/null
done
sleep 2
log "bringing host2's link back up"
ip netns exec "${tag}h2" ip link set eth0 up
expected=$((1 + 9))
check "every host converges to the same $expected messages in the same order" \
    wait_for 60 "convergence" same_everywhere "$conversation" "$expected"

echo "lan: $passed passed, $failed failed"
[[ $failed == 0 ]]
