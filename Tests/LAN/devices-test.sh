#!/usr/bin/env bash
# One person, two machines (issue 33 §5), with real `confab up --no-web` processes and
# every default a person has (discovery on) on a LAN of network namespaces
# (Tests/LAN/namespaces.sh) that exists only while this script runs: Alice's desktop (host
# 1) and Bob (host 3) meet by beacons; Alice links her laptop (host 2, no identity at first)
# with `devices link` / `init --link CODE` (Tests/LAN/link_driver.py answers y once both
# sides' words match). Then: Bob's message reaches both of her machines; reading it on the
# laptop clears the desktop's unread count and shows "read" at Bob; the laptop's answer is
# "mine" on the desktop and Alice's at Bob; a group the laptop starts is Alice's, with no
# member for the laptop, and one Bob starts with Alice reaches the laptop; and the laptop,
# removed while it was stopped, learns it when it starts again, reads nothing Bob wrote
# after, and cannot send. Last, the same removal through a relay (host 4) with nobody
# online together (Protocol.md §20.13).
#
#   Tests/LAN/devices-test.sh        (CONFAB=path/to/confab)
#
# Needs root (ip netns). Outside CI it skips where namespaces are not permitted; under
# CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/debug/confab}")
tag=cfd$$
subnet=10.243.0
work=$(mktemp -d /tmp/confab-devices.XXXXXX)
pids=()
namespaces=()
passed=0
failed=0

LAN_NAME=devices
source Tests/LAN/namespaces.sh
source Tests/LAN/harness.sh
on_failure() { for f in "$work"/*.log "$work"/*.out; do [[ -f $f ]] && { echo "--- $f"; tail -n 15 "$f"; }; done; }
lan_begin "$subnet" 4

# Host i keeps its data in $work/$run$i: the relay part runs on the same hosts with new
# identities (run r), once every node of the first part (run a) has stopped.
run=a
cli() { # cli HOST ARGS...
    local i=$1
    shift
    NO_COLOR=1 ip netns exec "${tag}h$i" "$confab" --data "$work/$run$i" "$@"
}
declare -A node_pid
start_node() { # start_node HOST [COMMAND]: `up --no-web` (or `relay`) with discovery on
    local i=$1
    if [[ ${2:-up} == relay ]]; then
        ip netns exec "${tag}h$i" "$confab" --data "$work/$run$i" relay --log-level debug >>"$work/$run$i.log" 2>&1 &
    else
        ip netns exec "${tag}h$i" "$confab" --data "$work/$run$i" up --no-web --log-level debug >>"$work/$run$i.log" 2>&1 &
    fi
    node_pid[$i]=$!
    pids+=("$!")
    wait_for 30 "host $i's control socket" test -S "$work/$run$i/control.sock"
}
stop_node() { lan_stop "${node_pid[$1]}"; }
log_mark() { stat -c %s "$work/$run$1.log" 2>/dev/null || echo 0; }
logged_after() { tail -c +"$(($2 + 1))" "$work/$run$1.log" | grep -qF -- "$3"; } # HOST MARK TEXT
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
connected_to() { cli "$1" peers --json | python3 -c "import json,sys; sys.exit(0 if any(p['id']=='$2' and p.get('connected') for p in json.load(sys.stdin)) else 1)"; }
file_exists() { [[ -s $1 ]]; }
# message HOST CONVERSATION TEXT [PYTHON-CONDITION on m]: the message with TEXT is there
# (and the condition holds).
message() {
    cli "$1" history "$2" --json --no-mark-read --limit 1000 2>/dev/null | python3 -c "
import json,sys
m=[x for x in json.load(sys.stdin) if x.get('text')==sys.argv[1]]
sys.exit(0 if m and (${4:-True}) else 1)" "$3" 2>/dev/null
}
lacks() { ! cli "$1" history "$2" --json --no-mark-read --limit 1000 | grep -qF "\"$3\""; }
unread() { cli "$1" list --json | python3 -c "import json,sys; print(next((c.get('unread',-1) for c in json.load(sys.stdin) if c['id']=='$2'), -1))"; }
unread_is() { test "$(unread "$1" "$2")" "$3" "$4"; } # HOST CONVERSATION OP N, e.g. -gt 0
outbox_is() { [[ $(cli "$1" status --json | json 'd.get("outbox")') == "$2" ]]; }
in_sync() { cli "$1" status --json | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if len(d.get('sessions',[]))==$2 and d.get('outstanding')==0 else 1)"; }
system_line() { cli "$1" history "$2" --json --no-mark-read --limit 1000 | python3 -c "import json,sys; sys.exit(0 if any((x.get('system') or '').startswith(sys.argv[1]) for x in json.load(sys.stdin)) else 1)" "$3"; }
removed_logged() { grep -q "This device was removed from Alice's devices" "$work/$run$1.log"; }

# link: `devices link` on host 1, `init --link CODE --name laptop` on host 2, no address.
link() {
    mkdir -p "$work/$run-link"
    python3 Tests/LAN/link_driver.py offer "${tag}h1" "$confab" "$work/${run}1" "$work/$run-link" >"$work/$run-link.offer.out" 2>&1 &
    local offer_pid=$! join_status=0 offer_status=0
    pids+=("$offer_pid")
    wait_for 30 "the link code" file_exists "$work/$run-link/code" || return 1
    python3 Tests/LAN/link_driver.py join "${tag}h2" "$confab" "$work/${run}2" "$work/$run-link" "$(cat "$work/$run-link/code")" \
        >"$work/$run-link.join.out" 2>&1 || join_status=$?
    wait "$offer_pid" || offer_status=$?
    [[ $join_status == 0 && $offer_status == 0 ]] && grep -q 'Linked laptop (' "$work/$run-link.offer.out"
}

# --- 1. Alice and Bob meet by beacons; Alice writes Bob ------------------------------------
cli 1 init --name Alice >/dev/null
cli 3 init --name Bob >/dev/null
alice=$(cli 1 whoami --json | json 'd["id"]')
bob=$(cli 3 whoami --json | json 'd["id"]')
start_node 1
start_node 3
check "1. Alice's desktop and Bob meet by beacons" wait_for 30 "a session" connected_to 1 "$bob"
conversation=$(cli 1 new Bob --message "hello Bob" --json | json 'd["id"]')
check "   …and Bob has Alice's message" wait_for 20 "the message at Bob" message 3 "$conversation" "hello Bob"

# --- 2. The laptop is linked, with no address, and starts -----------------------------------
check "2. the laptop links to Alice's desktop (init --link CODE, found by beacons)" link
laptop=$(cli 2 whoami --json 2>/dev/null | json 'd["id"]' 2>/dev/null || true)
alices_device() { [[ -n $laptop && $laptop != "$alice" && $(cli 2 whoami --json | json 'd["person"]') == "$alice" ]]; }
check "   …and is Alice's device with a key of its own" alices_device
start_node 2
check "   …and gets Alice's conversation with Bob" wait_for 30 "the conversation on the laptop" message 2 "$conversation" "hello Bob"

# --- 3. Bob writes: both of Alice's machines show it ----------------------------------------
cli 3 send "$conversation" "hello Alice" >/dev/null || true
check "3. Bob's message reaches Alice's desktop" wait_for 30 "Bob's message at the desktop" message 1 "$conversation" "hello Alice" "m[0].get('authorName')=='Bob' and not m[0].get('mine')"
check "   …and her laptop" wait_for 30 "Bob's message at the laptop" message 2 "$conversation" "hello Alice" "m[0].get('authorName')=='Bob' and not m[0].get('mine')"

# --- 4. Read on the laptop: the desktop's count clears, Bob sees "read" ---------------------
both_unread() { unread_is 1 "$conversation" -gt 0 && unread_is 2 "$conversation" -gt 0; }
check "4. both of Alice's machines count it unread" both_unread
check "   …not yet read at Bob" message 3 "$conversation" "hello Alice" "m[0].get('status')!='read'"
cli 2 history Bob >"$work/laptop-read.out" || true
read_on_laptop() { grep -q "hello Alice" "$work/laptop-read.out" && unread_is 2 "$conversation" -eq 0; }
check "   Alice reads on the laptop (history Bob): its count is 0" read_on_laptop
check "   …the desktop's unread count clears" wait_for 30 "the desktop's count to clear" unread_is 1 "$conversation" -eq 0
check "   …and Bob sees his message read" wait_for 30 "\"read\" at Bob" message 3 "$conversation" "hello Alice" "m[0].get('status')=='read'"

# --- 5. The laptop answers: hers on the desktop, Alice's at Bob -----------------------------
cli 2 send "$conversation" "answer from the laptop" >/dev/null || true
check "5. the laptop's answer is the desktop's own (mine)" wait_for 30 "the answer at the desktop" message 1 "$conversation" "answer from the laptop" "m[0].get('mine') is True"
check "   …and from Alice at Bob, written with the laptop's key" wait_for 30 "the answer at Bob" message 3 "$conversation" "answer from the laptop" \
    "m[0].get('authorName')=='Alice' and m[0].get('author')=='$laptop' and not m[0].get('mine')"
one_alice() { cli 3 peers --json | python3 -c "import json,sys; ids=[p['id'] for p in json.load(sys.stdin)]; sys.exit(0 if '$alice' in ids and '$laptop' not in ids else 1)"; }
check "   …and Bob lists one Alice, her person key, no peer for the laptop" one_alice

# --- 6. The laptop starts a group with Bob: Alice's group ------------------------------------
group=$(cli 2 new "$bob" --title "From the laptop" --message "lunch at noon?" --json | json 'd["id"]' || true)
check "6. the laptop's group reaches Bob from Alice" wait_for 30 "the group at Bob" message 3 "$group" "lunch at noon?" "m[0].get('authorName')=='Alice'"
check "   …and the desktop shows it as hers" wait_for 30 "the group at the desktop" message 1 "$group" "lunch at noon?" "m[0].get('mine') is True"
cli 3 members "$group" --json >"$work/members.out" || true
persons_only() { grep -q "$alice" "$work/members.out" && ! grep -q "$laptop" "$work/members.out"; }
check "   …and its members at Bob are Alice's key, not the laptop's" persons_only
# Groups are of persons: one Bob starts with Alice reaches the laptop he never named.
bobs_group=$(cli 3 new "$alice" --title "From Bob" --message "a group with Alice" --json | json 'd["id"]' || true)
check "   a group Bob starts with Alice reaches her laptop" wait_for 30 "Bob's group at the laptop" message 2 "$bobs_group" "a group with Alice" "m[0].get('authorName')=='Bob'"

# --- 7. Removed while offline -----------------------------------------------------------------
stop_node 2
bob_mark=$(log_mark 3)
cli 1 devices remove laptop --yes >"$work/remove.out" 2>&1 || true
check "7. the desktop removes the stopped laptop" grep -q "Removed laptop" "$work/remove.out"
check "   …and Bob is told (a system line in his conversation with Alice)" \
    wait_for 30 "the removal at Bob" system_line 3 "$conversation" "Alice removed a device: laptop ("
check "   …and holds her new list" wait_for 30 "the list at Bob" logged_after 3 "$bob_mark" "device list of ${alice:0:8}"
cli 3 send "$conversation" "after the removal" >/dev/null || true
check "   Bob writes after it, and the desktop shows it" wait_for 30 "the message at the desktop" message 1 "$conversation" "after the removal"
start_node 2
check "   the laptop, started again, says it was removed" wait_for 30 "the laptop's removal in its log" removed_logged 2
check "   …and is in step with the desktop and Bob" wait_for 30 "the laptop in step" in_sync 2 2
old_not_new() { message 2 "$conversation" "$1" && lacks 2 "$conversation" "after the removal"; }
check "   …keeps what it had, and cannot read what Bob wrote after" old_not_new "hello Alice"
if cli 2 send "$conversation" "from a removed laptop" >"$work/removed-send.out" 2>&1; then removed_send=0; else removed_send=$?; fi
send_refused() { # OUTPUT STATUS
    [[ $2 != 0 ]] && grep -q "This device was removed from Alice's devices" "$1" && grep -q "confab init --link CODE" "$1"
}
check "   …and a send there fails, saying why and what to do" send_refused "$work/removed-send.out" "$removed_send"
cli 1 send "$conversation" "from the desktop after the removal" >/dev/null || true
check "   the desktop still writes to Bob" wait_for 30 "the desktop's message at Bob" message 3 "$conversation" "from the desktop after the removal"
check "   …and Bob holds nothing from the removed laptop" lacks 3 "$conversation" "from a removed laptop"

# --- 8. The same through a relay, with nobody online together ---------------------------------
lan_stop "${node_pid[1]}" "${node_pid[2]}" "${node_pid[3]}"
run=r
cli 4 init --name relay >/dev/null
relay=$(cli 4 whoami --json | json 'd["id"]')
cli 1 init --name Alice >/dev/null
cli 3 init --name Bob >/dev/null
alice=$(cli 1 whoami --json | json 'd["id"]')
bob=$(cli 3 whoami --json | json 'd["id"]')
# Their relay, chosen by hand (docs/relays.md): the default network trusts no other.
cli 1 peers add "$relay" --name relay >/dev/null
cli 3 peers add "$relay" --name relay >/dev/null
start_node 4 relay
start_node 1
start_node 3
check "8. with a relay: Alice's desktop and Bob meet" wait_for 30 "a session" connected_to 1 "$bob"
conversation=$(cli 1 new Bob --message "hello Bob" --json | json 'd["id"]')
check "   …and Bob has Alice's message" wait_for 30 "the message at Bob" message 3 "$conversation" "hello Bob"
check "   the laptop links" link
start_node 2
check "   …and gets the conversation" wait_for 30 "the conversation on the laptop" message 2 "$conversation" "hello Bob"
stop_node 2
stop_node 3
relay_mark=$(log_mark 4)
cli 1 devices remove laptop --yes >"$work/relay-remove.out" 2>&1 || true
check "   the desktop, alone with the relay, removes the laptop" grep -q "Removed laptop" "$work/relay-remove.out"
check "   …and the relay holds the new list" wait_for 30 "the list at the relay" logged_after 4 "$relay_mark" "device list of ${alice:0:8}"
check "   …and the rekeys" wait_for 30 "the desktop's outbox to empty" outbox_is 1 0
stop_node 1
start_node 3
check "   Bob, alone with the relay, is told of the removal" \
    wait_for 30 "the removal at Bob" system_line 3 "$conversation" "Alice removed a device: laptop ("
check "   …and is in step with the relay" wait_for 30 "Bob in step" in_sync 3 1
cli 3 send "$conversation" "after the removal" >/dev/null || true
check "   …and writes; the relay holds it" wait_for 30 "Bob's outbox to empty" outbox_is 3 0
stop_node 3
start_node 2
check "   the laptop, alone with the relay, says it was removed" wait_for 30 "the laptop's removal in its log" removed_logged 2
check "   …and is in step with the relay" wait_for 30 "the laptop in step" in_sync 2 1
check "   …and cannot read what Bob wrote after" old_not_new "hello Bob"
if cli 2 send "$conversation" "from a removed laptop" >"$work/relay-removed-send.out" 2>&1; then removed_send=0; else removed_send=$?; fi
check "   …and a send there fails, saying why and what to do" send_refused "$work/relay-removed-send.out" "$removed_send"

echo "devices: $passed passed, $failed failed"
[[ $failed == 0 ]]
