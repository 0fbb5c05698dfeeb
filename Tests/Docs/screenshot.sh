#!/usr/bin/env bash
# Prints the README's picture of the chat: a real capture of the full-screen chat. Alice,
# Bob and Carol run real nodes in a network namespace that has only loopback (nothing leaves
# this machine); Carol starts a group, Bob writes to Alice, and Alice, in `confab chat` in a
# tmux window of WIDTH×HEIGHT, pins the group, opens Bob's thread and answers, which Bob
# reads. Then `tmux capture-pane -p` prints the screen as text.
#
#   CONFAB=.build/release/confab Tests/Docs/screenshot.sh      (as root: it makes a namespace)
set -euo pipefail
cd "$(dirname "$0")/../.."
confab=$(realpath "${CONFAB:-.build/release/confab}")
width=${WIDTH:-100}
height=${HEIGHT:-14}
[[ -x $confab ]] || { echo "screenshot: no confab at $confab (set CONFAB)" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "screenshot: run as root (it makes a network namespace)" >&2; exit 1; }
command -v tmux >/dev/null || { echo "screenshot: install tmux" >&2; exit 1; }

ns=confab-shot-$$
dir=$(mktemp -d)
pids=()
cleanup() {
    tmux -S "$dir/tmux.sock" kill-server 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait "${pids[@]}" 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
ip netns add "$ns"
ip netns exec "$ns" ip link set lo up
in_ns() { ip netns exec "$ns" env LANG=C.UTF-8 "$@"; }
c() {
    local who=$1
    shift
    in_ns "$confab" --data "$dir/$who" "$@"
}
key() { c "$1" whoami --json | sed -n 's/.*"id" *: *"\([0-9a-f]*\)".*/\1/p'; }
wait_for() { # SECONDS TEXT: until the chat's screen shows TEXT
    local deadline=$((SECONDS + $1))
    until tmux -S "$dir/tmux.sock" capture-pane -p -t alice | grep -qF -- "$2"; do
        ((SECONDS < deadline)) || {
            echo "screenshot: the chat never showed \"$2\"; its screen:" >&2
            tmux -S "$dir/tmux.sock" capture-pane -p -t alice >&2
            exit 1
        }
        sleep 0.2
    done
}

for who in Alice Bob Carol; do c "${who,,}" init --name "$who" >/dev/null; done
for who in alice bob carol; do
    for other in Alice Bob Carol; do
        [[ ${other,,} == "$who" ]] || c "$who" peers add "$(key "${other,,}")" --name "$other" >/dev/null
    done
done

# Alice compared safety numbers with Bob: his key is verified here.
c alice verify "$(key bob)" --confirm >/dev/null

# Started without a shell function between, so that $! is the node itself (ip netns exec and
# env exec it), which cleanup stops.
ip netns exec "$ns" env LANG=C.UTF-8 "$confab" --data "$dir/bob" up --no-discovery \
    --listen 127.0.0.1:7462 --peer 127.0.0.1:7461 2>"$dir/bob.log" &
pids+=($!)
ip netns exec "$ns" env LANG=C.UTF-8 "$confab" --data "$dir/carol" up --no-discovery \
    --listen 127.0.0.1:7463 --peer 127.0.0.1:7461 2>"$dir/carol.log" &
pids+=($!)
sleep 2
c carol new alice bob --title "Weekend plans" --message "Hike on Saturday?" >/dev/null
sleep 1
c bob send alice "are you coming tonight?" >/dev/null

tmux -S "$dir/tmux.sock" -f /dev/null new-session -d -s alice -x "$width" -y "$height" \
    "ip netns exec $ns env LANG=C.UTF-8 TERM=xterm-256color $confab --data $dir/alice chat --no-discovery --listen 127.0.0.1:7461 --peer 127.0.0.1:7462 --peer 127.0.0.1:7463 2>$dir/alice.err"
tmux -S "$dir/tmux.sock" set-option -t alice status off >/dev/null
wait_for 30 "2 peers"
wait_for 30 "are you coming"
wait_for 30 "Hike on"
keys() { tmux -S "$dir/tmux.sock" send-keys -t alice "$@"; }
# The list: Bob's thread, then the group. Pin the group (it moves to the top), open Bob's.
keys Down
sleep 0.3
keys p
wait_for 10 "📌"
keys Down Enter
wait_for 10 "are you coming tonight?"
keys -l "yes, at 8"
keys Enter
wait_for 30 "delivered ✓✓"
c bob history alice >/dev/null
wait_for 30 "read ✓✓"
sleep 0.5
tmux -S "$dir/tmux.sock" capture-pane -p -t alice
