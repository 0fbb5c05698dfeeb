#!/usr/bin/env bash
# Two machines on a namespace LAN, one upgraded and one not: bob runs the previous release
# (built from its tag by old-release.sh), alice runs this build. Each message either arrives
# or its person is told why (Protocol.md §4.9, §12.1); then bob upgrades and what he wrote
# meanwhile reaches alice. Nothing is sent on this machine's real interfaces.
#
#   Tests/LAN/mixed-version-test.sh     (CONFAB=path/to/confab, OLD_CONFAB=path, OLD_TAG=v0.1.0)
#
# Needs root (ip netns). Outside CI it skips where namespaces are not permitted; under
# CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/debug/confab}")
old_tag=${OLD_TAG:-v0.1.0}
old=${OLD_CONFAB:-$(Tests/LAN/old-release.sh "$old_tag")}
tag=cfm$$
subnet=10.233.0
work=$(mktemp -d /tmp/confab-mixed.XXXXXX)
pids=()
namespaces=()
passed=0
failed=0

LAN_NAME=mixed
source Tests/LAN/namespaces.sh
source Tests/LAN/harness.sh
on_failure() {
    for who in alice bob; do
        echo "--- $who.log (last 15 lines)" >&2
        tail -15 "$work/$who.log" >&2 || true
    done
}
lan_begin "$subnet" 2

# Host 1 is alice (this build), host 2 is bob (the old release until he upgrades).
declare -A host=([alice]=1 [bob]=2) binary=([alice]=$confab [bob]=$old)
cli() { # cli WHO ARGS...
    local who=$1
    shift
    NO_COLOR=1 ip netns exec "${tag}h${host[$who]}" "${binary[$who]}" --data "$work/$who" "$@"
}
start_node() {
    local who=$1 i=${host[$1]}
    ip netns exec "${tag}h$i" "${binary[$who]}" --data "$work/$who" up --listen "$subnet.$i:7461" \
        --discovery-port 7460 --beacon "$subnet.255:7460" --log-level debug >>"$work/$who.log" 2>&1 &
    pids+=("$!")
    node_pid[$who]=$!
}
declare -A node_pid
json() { python3 -c "import json,sys; print(eval(sys.argv[1], {'d': json.load(sys.stdin)}))" "$1"; }
# Whether WHO lists a conversation whose last message is TEXT.
holds() { cli "$1" list --json | json "any(c.get('lastMessage') and c['lastMessage']['text'] == '''$2''' for c in d)" | grep -q True; }
holds_not() { ! holds "$@"; }
# Whether WHO's command (ARGS) says TEXT, whatever it exits with (doctor exits 1 on problems).
told() { # told WHO TEXT ARGS...
    local out
    out=$(cli "$1" "${@:3}" 2>&1 || true)
    grep -qF -- "$2" <<<"$out"
}

cli alice init --name alice >/dev/null
cli bob init --name bob >/dev/null
log "bob runs $(cli bob --version), alice $(cli alice --version)"
alice_key=$(cli alice whoami --json | json "d['id']")
bob_key=$(cli bob whoami --json | json "d['id']")
cli alice peers add "$bob_key" --name bob >/dev/null
cli bob peers add "$alice_key" --name alice >/dev/null
start_node alice
start_node bob
connected() { cli alice peers --json | json "any(p.get('connected') for p in d)" | grep -q True; }
check "the two find each other by beacons" wait_for 30 "a session" connected

older="bob runs an older Confab (protocol 1): conversations bob starts wait until bob upgrades"
check "alice's peers says what bob's older Confab costs" wait_for 15 "the notice" told alice "$older" peers
check "so does her status" told alice "$older" status
check "and her doctor" told alice "$older" doctor --seconds 1

cli alice send bob "from the new build" >/dev/null
check "a conversation alice starts reaches bob" wait_for 30 "alice's message at bob" holds bob "from the new build"
thread=$(cli bob list --json | json "[c['id'] for c in d if c.get('lastMessage') and c['lastMessage']['text'] == 'from the new build'][0]")

# Bob starts one of his own (a protocol 1 create, which no node of this build takes), then
# answers in alice's: once the answer is at alice, his own conversation would have been too.
cli bob new alice --title "bob's plans" --message "from the old build" >/dev/null
cli bob send "$thread" "an answer from the old build" >/dev/null
check "bob's answer in alice's conversation reaches her" \
    wait_for 30 "bob's answer at alice" holds alice "an answer from the old build"
check "the conversation bob started does not (he was told nothing; alice was)" \
    holds_not alice "from the old build"

# Not the loop of the first builds after 0.1.0 (a session closed over bob's create, once a
# second): no session between them ended in error.
check "no session with bob ended in error" bash -c "! grep -q 'closing session with ${bob_key:0:8}' '$work/alice.log'"

# Bob upgrades: his store opens with this build, which carries the conversation nobody took
# over to one of this version, and alice gets it, his message at its time.
kill -TERM "${node_pid[bob]}"
wait "${node_pid[bob]}" || true
binary[bob]=$confab
start_node bob
check "after bob upgrades, what he wrote while old reaches alice" \
    wait_for 30 "bob's carried message at alice" holds alice "from the old build"
check "with the title bob gave it" told alice "bob's plans" list
no_notice() { ! told alice "older Confab" peers; }
check "and alice is no longer told bob runs an older Confab" wait_for 15 "the notice to go" no_notice

log "$passed passed, $failed failed"
((failed == 0))
