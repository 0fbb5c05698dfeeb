#!/usr/bin/env bash
# A tour of Confab's offline command line: two identities in DIR, keys exchanged by hand,
# threads, messages from arguments, stdin and --lines, then list, history and search.
# Usage: Examples/offline-tour.sh DIR   (CONFAB=path/to/confab to choose the binary)
set -euo pipefail
dir=${1:?usage: offline-tour.sh DIR}
confab=${CONFAB:-confab}
alice=(--data "$dir/alice")
bob=(--data "$dir/bob")

"$confab" "${alice[@]}" init --name Alice >/dev/null
"$confab" "${bob[@]}" init --name Bob >/dev/null
alice_key=$("$confab" "${alice[@]}" whoami --json | sed -E 's/.*"id":"([0-9a-f]{64})".*/\1/')
bob_key=$("$confab" "${bob[@]}" whoami --json | sed -E 's/.*"id":"([0-9a-f]{64})".*/\1/')
"$confab" "${alice[@]}" peers add "$bob_key" --name Bob >/dev/null
"$confab" "${bob[@]}" peers add "$alice_key" --name Alice >/dev/null

"$confab" "${alice[@]}" send bob "Hi Bob! Are you around this weekend?"
"$confab" "${alice[@]}" new bob --title "Hike" --message "Saturday, 9 AM at the trailhead?"
echo "Bring water" | "$confab" "${alice[@]}" send bob
printf 'step 1 ok\nstep 2 ok\nall green\n' | "$confab" "${alice[@]}" send bob --lines

"$confab" "${alice[@]}" list
"$confab" "${alice[@]}" history bob
"$confab" "${alice[@]}" search trail
