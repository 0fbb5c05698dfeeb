#!/usr/bin/env bash
# Build logs into a chat: every line of a (simulated) build goes to Bob as its own message,
# with one JSON acknowledgement per line, then the exit codes a script can rely on.
# Everything here is offline: the messages wait in the outbox ("sending") until a node runs.
# Usage: Examples/send-from-pipe.sh DIR   (CONFAB=path/to/confab to choose the binary)
set -euo pipefail
dir=${1:?usage: send-from-pipe.sh DIR}
confab=${CONFAB:-confab}
alice=(--data "$dir/alice")

"$confab" "${alice[@]}" init --name CI >/dev/null
bob_key=$("$confab" --data "$dir/bob" init --name Bob --json | sed -E 's/.*"id":"([0-9a-f]{64})".*/\1/')
"$confab" "${alice[@]}" peers add "$bob_key" --name Bob >/dev/null

fake_build() {
    echo "compiling 12 files"
    echo "linking confab"
    echo "build finished in 41 s"
}

echo "== one message per line, one acknowledgement per line"
fake_build | "$confab" "${alice[@]}" send bob --lines --json

echo "== the whole log as one message"
fake_build | "$confab" "${alice[@]}" send bob

echo "== --wait with nobody to deliver to: exit code 3 after the timeout"
set +e
"$confab" "${alice[@]}" send bob "are you there?" --wait --timeout 1 2>"$dir/wait.err"
status=$?
set -e
echo "exit code $status: $(head -n 1 "$dir/wait.err")"

echo "== a usage error: exit code 2"
set +e
"$confab" "${alice[@]}" send bob --timeout 0 "x" 2>/dev/null
echo "exit code $?"
set -e

echo "== the outbox: everything waits for a node"
"$confab" "${alice[@]}" history bob --no-mark-read
