#!/usr/bin/env bash
# An echo bot in a few lines of shell: Bob's node streams events (`watch --json`), and for
# every message someone else sends, the bot answers "echo: TEXT" in the same conversation.
# Two real nodes run on 127.0.0.1 with discovery off (Alice dials Bob as a static peer);
# Alice says hello and waits for the echo. Needs jq.
# Usage: Examples/echo-bot.sh DIR   (CONFAB=path/to/confab to choose the binary)
set -euo pipefail
dir=${1:?usage: echo-bot.sh DIR}
confab=${CONFAB:-confab}
alice=(--data "$dir/alice")
bob=(--data "$dir/bob")
pids=()

cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

wait_for() { # wait_for SECONDS COMMAND...
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

"$confab" "${alice[@]}" init --name Alice >/dev/null
"$confab" "${bob[@]}" init --name Bob >/dev/null
alice_key=$("$confab" "${alice[@]}" whoami --json | jq -r .id)
bob_key=$("$confab" "${bob[@]}" whoami --json | jq -r .id)
"$confab" "${alice[@]}" peers add "$bob_key" --name Bob >/dev/null
"$confab" "${bob[@]}" peers add "$alice_key" --name Alice >/dev/null

# Bob listens on a port the system picks; his node says which.
"$confab" "${bob[@]}" up --listen 127.0.0.1:0 --no-discovery 2>"$dir/bob.log" &
pids+=("$!")
wait_for 10 test -S "$dir/bob/control.sock"
bob_address=$("$confab" "${bob[@]}" status --json | jq -r .listen)

# The bot. It ends by itself when Bob's node stops (the event stream closes). The events
# also go to a file, for the wait below.
"$confab" "${bob[@]}" watch --json | tee "$dir/events.jsonl" |
    jq --unbuffered -r 'select(.event == "message" and (.message.mine | not))
        | "\(.message.conversation) \(.message.text)"' |
    while read -r conversation text; do
        "$confab" "${bob[@]}" send "$conversation" "echo: $text" >/dev/null
    done &

"$confab" "${alice[@]}" up --listen 127.0.0.1:0 --no-discovery --peer "$bob_key@$bob_address" 2>"$dir/alice.log" &
pids+=("$!")
wait_for 10 test -S "$dir/alice/control.sock"
# A watch reports what happens once it has started: wait until the bot has seen Alice come
# online, so that it is surely listening when she speaks. (Had it started too late to see
# her come, it is listening by the end of the wait anyway.)
alice_seen() { grep -q peer_online "$dir/events.jsonl"; }
wait_for 20 alice_seen || echo "the bot did not see Alice come online; going on" >&2

"$confab" "${alice[@]}" send bob "ping" --wait --timeout 20
echoed() { "$confab" "${alice[@]}" history bob --json --no-mark-read | jq -e 'any(.[]; .text == "echo: ping")' >/dev/null; }
if wait_for 20 echoed; then
    "$confab" "${alice[@]}" history bob --no-mark-read
else
    echo "no echo within 20 s" >&2
    exit 1
fi
