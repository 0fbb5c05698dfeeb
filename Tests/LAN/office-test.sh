#!/usr/bin/env bash
# An office: HOSTS (default 72, past the 64 sessions a node keeps) real `confab up` processes
# on one namespace LAN with default settings but the subnet's beacon, every one a stranger to
# the others. Once the LAN has settled, host 1 adds the last host's key and writes to it:
# the message must arrive (before sessions were chosen by need, every node's slots were full
# of strangers and this first contact was refused for ever). Prints sessions per node and how
# long the first message took. Nothing is sent on this machine's real interfaces.
#
#   Tests/LAN/office-test.sh          (CONFAB=path/to/confab, HOSTS=72)
#
# Needs root (ip netns). Outside CI it skips where namespaces are not permitted; under
# CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/debug/confab}")
hosts=${HOSTS:-72}
tag=cfo$$
subnet=10.234.0
work=$(mktemp -d /tmp/confab-office.XXXXXX)
pids=()
namespaces=()
passed=0
failed=0

LAN_NAME=office
source Tests/LAN/namespaces.sh
source Tests/LAN/harness.sh
on_failure() {
    for i in 1 "${target:-$hosts}"; do
        echo "--- h$i.log (last 15 lines)" >&2
        tail -15 "$work/h$i.log" >&2 || true
    done
}
lan_begin "$subnet" "$hosts"

cli() { # cli HOST ARGS...
    local i=$1
    shift
    NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/h$i" "$@"
}
json() { python3 -c "import json,sys; print(eval(sys.argv[1], {'d': json.load(sys.stdin)}))" "$1"; }
sessions_of() { cli "$1" status --json | json "len(d['sessions'])"; }

for i in $(seq 1 "$hosts"); do cli "$i" init --name "host$i" >/dev/null; done
for i in $(seq 1 "$hosts"); do
    ip netns exec "${tag}h$i" "$confab" --data "$work/h$i" up --listen "$subnet.$i:7461" \
        --discovery-port 7460 --beacon "$subnet.255:7460" --log-level debug >>"$work/h$i.log" 2>&1 &
    pids+=("$!")
done

# Settled: the last host's sessions have not changed for 5 s (as the 64 slots filled before).
last_count=-1
stable_since=$SECONDS
settled() {
    local now
    now=$(sessions_of "$hosts" 2>/dev/null || echo -1)
    if [[ $now != "$last_count" ]]; then
        last_count=$now
        stable_since=$SECONDS
    fi
    ((now > 0 && SECONDS - stable_since >= 5))
}
check "$hosts hosts settle" wait_for 120 "the LAN to settle" settled

counts=()
for i in $(seq 1 "$hosts"); do counts+=("$(sessions_of "$i")"); done
log "sessions per node: $(printf '%s\n' "${counts[@]}" | sort -n | python3 -c 'import sys; c=[int(l) for l in sys.stdin]; print(f"min {min(c)}, mean {sum(c)/len(c):.1f}, max {max(c)}")')"

# The stranger to write to: one host 1 has no session with, the one with the most sessions
# (before, a node whose slots were all taken).
connected=$(cli 1 status --json | json "' '.join(s['peer'] for s in d['sessions'])")
target=""
most=-1
for i in $(seq 2 "$hosts"); do
    key=$(cli "$i" whoami --json | json "d['id']")
    [[ " $connected " == *" $key "* ]] && continue
    if ((counts[i - 1] > most)); then
        most=${counts[i - 1]}
        target=$i
        target_key=$key
    fi
done
if [[ -z $target ]]; then
    echo "office: host 1 has a session with every other host: no stranger to write to" >&2
    exit 1
fi
log "host 1 writes to host $target, with which it has no session ($most sessions there)"
cli 1 peers add "$target_key" --name last >/dev/null
started=$(date +%s.%N)
cli 1 send last "hello from host 1" >/dev/null
arrived() { cli "$target" list --json | json "any(c.get('lastMessage') and c['lastMessage']['text'] == 'hello from host 1' for c in d)" | grep -q True; }
check "a first message to a stranger on a LAN of $hosts arrives" wait_for 60 "host $target to get it" arrived
if arrived; then
    log "first contact took $(python3 -c "import time; print(f'{time.time() - $started:.2f}')") s (the CLI's start included)"
fi
delivered() { cli 1 history last --json --no-mark-read | json "d[-1].get('status')" | grep -q delivered; }
check "and host 1 sees it delivered" wait_for 30 "the delivered mark" delivered

# Rooms (Protocol.md §18): two hosts with no session between them and no peer in common that
# is in the room meet through the room tags in their beacons (§18.7), and a room of every
# host carries a message to all of them over the sessions kept by need.
pair=""
for a in $(seq 2 "$hosts"); do
    a_peers=" $(cli "$a" status --json | json "' '.join(s['peer'] for s in d['sessions'])") "
    for b in $(seq $((a + 1)) "$hosts"); do
        b_key=$(cli "$b" whoami --json | json "d['id']")
        [[ $a_peers == *" $b_key "* ]] && continue
        pair="$a $b"
        break
    done
    [[ -n $pair ]] && break
done
read -r room_a room_b <<<"$pair"
log "hosts $room_a and $room_b (no session between them) join #design"
cli "$room_a" join design >/dev/null
cli "$room_b" join design >/dev/null
cli "$room_a" send '#design' "design review at 3" >/dev/null
in_room() { cli "$1" history '#design' --json --no-mark-read | json "any(m.get('text') == '$2' for m in d)" | grep -q True; }
check "a message in a room reaches its one other member, met by the room's beacon tag" \
    wait_for 60 "host $room_b to get it" in_room "$room_b" "design review at 3"

for i in $(seq 1 "$hosts"); do cli "$i" join general >/dev/null; done
started=$(date +%s.%N)
cli 1 send '#general' "all hands at 4" >/dev/null
everyone() {
    local i
    for i in $(seq 2 "$hosts"); do in_room_general "$i" || return 1; done
}
declare -A got=()
in_room_general() {
    [[ -n ${got[$1]:-} ]] && return 0
    cli "$1" history '#general' --json --no-mark-read | json "any(m.get('text') == 'all hands at 4' for m in d)" \
        | grep -q True || return 1
    got[$1]=1
}
check "a message in a room of all $hosts hosts reaches every one" wait_for 180 "every host to get it" everyone
if everyone; then
    log "the room's message reached all $hosts hosts in $(python3 -c "import time; print(f'{time.time() - $started:.1f}')") s (polled through the CLI)"
fi

log "$passed passed, $failed failed"
((failed == 0))
