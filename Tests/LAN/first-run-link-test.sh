#!/usr/bin/env bash
# Linking a new machine with no address typed, end to end, on a LAN of network namespaces
# (Tests/LAN/namespaces.sh) that exists only while this script runs: Alice (host 1) has a
# conversation with Bob (host 3) and runs `confab devices link` with discovery on; host 2,
# with no identity, runs `confab init --link CODE` with NO address, so it can find the
# offer only by its beacons (Protocol.md §20.10). Both answer y once their words match
# (Tests/LAN/link_driver.py). Then host 2 is Alice's device, and a message written there
# reaches her desktop and Bob. First, with UDP to the beacon port dropped in host 2, the
# same command must fail saying no offer was heard, and leave no identity behind: the
# link below works only because the beacons carry it.
#
#   Tests/LAN/first-run-link-test.sh        (CONFAB=path/to/confab)
#
# Needs root (ip netns, nft). Outside CI it skips where namespaces are not permitted; under
# CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/debug/confab}")
tag=cfk$$
subnet=10.242.0
work=$(mktemp -d /tmp/confab-link.XXXXXX)
pids=()
namespaces=()
passed=0
failed=0

LAN_NAME=first-run-link
source Tests/LAN/namespaces.sh
source Tests/LAN/harness.sh
on_failure() { for f in "$work"/*.log "$work"/*.out; do [[ -f $f ]] && { echo "--- $f"; tail -n 15 "$f"; }; done; }
lan_begin "$subnet" 3

cli() { # cli HOST ARGS...
    local i=$1
    shift
    NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/h$i" "$@"
}
start_node() { # every default a person has: discovery on, UDP 7460, TCP 7461
    ip netns exec "${tag}h$1" "$confab" --data "$work/h$1" up --no-web --log-level debug >>"$work/h$1.log" 2>&1 &
    pids+=("$!")
}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
connected_to() { cli "$1" peers --json | python3 -c "import json,sys; sys.exit(0 if any(p['id']=='$2' and p.get('connected') for p in json.load(sys.stdin)) else 1)"; }
has_text() { cli "$1" history "$2" --json --no-mark-read 2>/dev/null | grep -q "\"$3\""; }
file_exists() { [[ -s $1 ]]; }

# offer: `devices link` on Alice's desktop, in the background; its code in $work/<dir>/code.
offer() {
    mkdir -p "$work/$1"
    python3 Tests/LAN/link_driver.py offer "${tag}h1" "$confab" "$work/h1" "$work/$1" >"$work/$1.offer.out" 2>&1 &
    offer_pid=$!
    pids+=("$offer_pid")
    wait_for 30 "the link code" file_exists "$work/$1/code"
}
join() { python3 Tests/LAN/link_driver.py join "${tag}h2" "$confab" "$work/h2" "$work/$1" "$(cat "$work/$1/code")" >"$work/$1.join.out" 2>&1; }

cli 1 init --name Alice >/dev/null
cli 3 init --name Bob >/dev/null
alice=$(cli 1 whoami --json | json 'd["id"]')
bob=$(cli 3 whoami --json | json 'd["id"]')
start_node 1
start_node 3
check "Alice and Bob meet by beacons" wait_for 30 "a session" connected_to 1 "$bob"
conversation=$(cli 1 new Bob --message "hello Bob" --json | json 'd["id"]')
check "  …and Bob has Alice's message" wait_for 20 "the message at Bob" has_text 3 "$conversation" "hello Bob"

# --- Beacons blocked at the new machine: no address, so nothing to link to ---------------
ip netns exec "${tag}h2" nft add table inet linkblock
ip netns exec "${tag}h2" nft add chain inet linkblock input '{ type filter hook input priority 0; policy accept; }'
ip netns exec "${tag}h2" nft add rule inet linkblock input udp dport 7460 drop
offer blocked
if join blocked; then blocked_status=0; else blocked_status=$?; fi
check "with UDP port 7460 dropped at the new machine, init --link without an address fails" test "$blocked_status" -ne 0
check "  …saying no offer with the code was heard" grep -q "no offer with this code was heard on the LAN" "$work/blocked.join.out"
check "  …and leaving no identity there" bash -c "! NO_COLOR=1 ip netns exec ${tag}h2 '$confab' --data '$work/h2' whoami >/dev/null 2>&1"
kill -TERM "$offer_pid" 2>/dev/null || true
wait "$offer_pid" 2>/dev/null || true
ip netns exec "${tag}h2" nft delete table inet linkblock

# --- Beacons through: found, linked, and writing as Alice ---------------------------------
offer linked
if join linked; then join_status=0; else join_status=$?; fi
if wait "$offer_pid"; then offer_status=0; else offer_status=$?; fi
check "init --link CODE with no address finds the offer by its beacons and links" test "$join_status" -eq 0
check "  …and devices link ends linked" bash -c "[[ $offer_status == 0 ]] && grep -q 'Linked laptop (' '$work/linked.offer.out'"
check "  …after both machines showed the same five words" bash -c \
    "[[ -s '$work/linked/join.words' && \$(wc -w <'$work/linked/join.words') == 5 ]] && cmp -s '$work/linked/join.words' '$work/linked/offer.words'"
laptop=$(cli 2 whoami --json 2>/dev/null | json 'd["id"]' 2>/dev/null || true)
check "  …and the new machine is Alice's device (whoami: her person, a key of its own)" \
    bash -c "[[ -n '$laptop' && \$(NO_COLOR=1 ip netns exec ${tag}h2 '$confab' --data '$work/h2' whoami --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"person\"])') == $alice && $laptop != $alice ]]"
listed() { cli 1 devices --json | python3 -c "import json,sys; d=json.load(sys.stdin); ids=[x['id'] for x in d['devices']]; sys.exit(0 if '$laptop' in ids and '$alice' in ids and len(ids)==2 else 1)"; }
check "  …listed by Alice's desktop (devices --json)" listed
start_node 2
check "the new machine receives Alice's conversation from her desktop" \
    wait_for 60 "the conversation on the laptop" has_text 2 "$conversation" "hello Bob"
cli 2 send "$conversation" "written on the laptop" >/dev/null
check "  …and a message written there reaches Alice's desktop" \
    wait_for 30 "the message at the desktop" has_text 1 "$conversation" "written on the laptop"
mine() { cli 1 history "$conversation" --json --no-mark-read | python3 -c "import json,sys; m=[x for x in json.load(sys.stdin) if x.get('text')=='written on the laptop']; sys.exit(0 if m and m[0].get('mine') else 1)"; }
check "  …as hers" mine
check "  …and Bob" wait_for 30 "the message at Bob" has_text 3 "$conversation" "written on the laptop"

echo "first-run-link: $passed passed, $failed failed"
[[ $failed == 0 ]]
