#!/usr/bin/env bash
# Makes the store fixtures of one earlier release: three people (alice, bob, carol) who
# talked with that release's binary — a 1:1 thread and a titled group, each message
# delivered — then stopped cleanly; and dave, whose node never ran, to whom alice wrote a
# message that never left her machine. The stores are kept as the release left them, so that
# the upgrade tests open exactly what a person of that release holds.
#
#   Tests/Fixtures/Stores/make-fixture.sh TAG      (e.g. v0.1.0; run as root)
#
# builds the tag's `confab` in a scratch worktree, runs the three nodes in a network
# namespace of their own with nothing but loopback (no packet leaves it), and writes
# Tests/Fixtures/Stores/TAG/{alice,bob,carol,dave}/. Made once per release and committed.
set -euo pipefail
tag=${1:?usage: make-fixture.sh TAG}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
out="$repo/Tests/Fixtures/Stores/$tag"
work=$(mktemp -d /tmp/confab-fixture.XXXXXX)
ns="confab-fixture-$$"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
    git -C "$repo" worktree remove --force "$work/src" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# CONFAB_FIXTURE_BINARY: that tag's confab, built already (saves a whole build).
if [ -n "${CONFAB_FIXTURE_BINARY:-}" ]; then
    bin=$CONFAB_FIXTURE_BINARY
else
    git -C "$repo" worktree add --detach "$work/src" "$tag" >/dev/null
    (cd "$work/src" && swift build --product confab >/dev/null)
    bin="$work/src/.build/debug/confab"
fi
version=$("$bin" --version)

ip netns add "$ns"
ip netns exec "$ns" ip link set lo up
run() { ip netns exec "$ns" "$bin" --data "$work/$1" "${@:2}"; }
json() { python3 -c "import json,sys; print(eval(sys.argv[1], {'d': json.load(sys.stdin)}))" "$1"; }

declare -A key port
port=([alice]=7501 [bob]=7502 [carol]=7503)
for who in alice bob carol; do
    run "$who" init --name "$who" >/dev/null
    key[$who]=$(run "$who" whoami --json | json "d['id']")
done
for who in alice bob carol; do
    for other in alice bob carol; do
        [ "$who" = "$other" ] || run "$who" peers add "${key[$other]}" --name "$other" >/dev/null
    done
done

run alice send bob "Hello Bob, from Confab $version" >/dev/null
run dave init --name dave >/dev/null
run alice peers add "$(run dave whoami --json | json "d['id']")" --name dave >/dev/null
run alice send dave "Dave, this waits for you" >/dev/null
run alice new bob carol --title Team --message "Hello team" >/dev/null

for who in alice bob carol; do
    peers=()
    for other in alice bob carol; do
        [ "$who" = "$other" ] || peers+=(--peer "${key[$other]}@127.0.0.1:${port[$other]}")
    done
    # Not through `run`: a function in the background is a subshell, and its pid is not the
    # node's (`ip netns exec` becomes the node, so this pid is).
    ip netns exec "$ns" "$bin" --data "$work/$who" up --listen "127.0.0.1:${port[$who]}" --no-discovery \
        "${peers[@]}" 2>"$work/$who.log" &
    pids+=($!)
done

# Waits (at most a minute) until `who` lists `count` conversations holding `text`.
wait_for() {
    local who=$1 text=$2
    for _ in $(seq 600); do
        if run "$who" list --json | json "sum(1 for c in d if c.get('lastMessage') and c['lastMessage']['text'] == '$text')" |
            grep -qv '^0$'; then
            return 0
        fi
        sleep 0.1
    done
    echo "make-fixture: $who never received \"$text\"" >&2
    exit 1
}
wait_for bob "Hello Bob, from Confab $version"
wait_for carol "Hello team"
run bob send alice "Hi Alice, Bob here" >/dev/null
team=$(run carol list --json | json "[c['id'] for c in d if c.get('title') == 'Team' or c['name'] == 'Team'][0]")
run carol send "$team" "Hi all, Carol here" >/dev/null
wait_for alice "Hi Alice, Bob here"
wait_for alice "Hi all, Carol here"
wait_for bob "Hi all, Carol here"

for pid in "${pids[@]}"; do kill -TERM "$pid"; done
for pid in "${pids[@]}"; do wait "$pid" || true; done
pids=()

rm -rf "$out"
for who in alice bob carol dave; do
    mkdir -p "$out/$who"
    # What a person's data directory holds at rest (the socket and the lock are the node's).
    for file in "$work/$who"/*; do
        case $(basename "$file") in
        control.sock | node.lock | *.log) ;;
        *) cp -r "$file" "$out/$who/" ;;
        esac
    done
done
printf 'Made by Tests/Fixtures/Stores/make-fixture.sh from %s (%s), confab --version: %s\n' \
    "$tag" "$(git -C "$repo" rev-parse --short "$tag^{commit}")" "$version" >"$out/MADE"
echo "$out"
