#!/usr/bin/env bash
# The web app, measured in a real browser (Debian's chromium through Selenium and
# chromium-driver, as Tests/Web/web-test.sh drives it): three hosts on a LAN of network
# namespaces; each node runs `confab up` with its defaults (the app at 127.0.0.1:7462 in its
# own namespace), a Chromium beside it, driven from the third host (Bench/web_bench.py).
# Prints, each beside a floor measured in the same run, in turns with it:
#   - the conversation list's first paint on a heavy user's data directory (1,000
#     conversations of 100 messages and one of 10,000: `confab-bench --web-fixture`), from
#     navigation start to the frame after its rows are in the document, beside the
#     `conversations` operation over HTTP alone, the store's own read and its JSON encoding
#     (`confab-bench --web-floors`), and the terminal chat's first frame;
#   - opening the conversation of 10,000 (click → its newest message in the log, painted),
#     and one of 100, beside the `history` operation (60 messages, as the page asks);
#   - a message typed in A's page until its bubble is painted in B's (two fresh nodes),
#     beside node to node (`confab send --lines` on A → `confab watch --json` on B);
#   - 100 event sockets on one node, and one that never reads, while the peer sends it
#     2,000 messages: the node's RSS, event frame sizes, the stalled socket's end (code
#     4008), and the node's own chat latency without and with the sockets.
#
#   Bench/web.sh      (CONFAB=path/to/confab, default the release build, with confab-bench
#                      beside it; RUNS=7 loads and opens; MESSAGES=40 of each kind; TABS=100;
#                      FLOOD=2000 messages, RATE=200 a second, then all at once;
#                      PARTS=list,live,tabs (any of them); CONFAB_WEB_FIXTURE=DIR keeps the
#                      fixture (built there on first use) for the next run; KEEP=FILE keeps
#                      the raw figures as JSON; BEFORE=path/to/other/confab measures the
#                      list and the opens with that build first, in the same run, on the
#                      same data directory; PROFILE=DIR samples the node with `perf`
#                      during the paced messages to the 100 sockets, and lists where its CPU
#                      went in DIR/tabs.txt, the page's own during the opens in
#                      DIR/page.txt and B's page while messages arrive in DIR/live.txt;
#                      PIN=1 keeps each node's host, its node and its Chromium, to a core
#                      of its own, as on two machines)
#
# Needs root (ip netns). Everything is sent inside namespaces this script creates, on the
# private test subnet 10.241.0.0/24, or on their own loopbacks.
set -euo pipefail
cd "$(dirname "$0")/.."
confab=$(realpath "${CONFAB:-.build/release/confab}")
bench=$(dirname "$confab")/confab-bench
subnet=10.241.0
PYTHON=/usr/bin/python3
[[ -x $confab ]] || { echo "web bench: no confab binary at $confab (swift build -c release --product confab)" >&2; exit 1; }
for tool in chromium chromedriver $PYTHON; do
    command -v "$tool" >/dev/null || { echo "web bench: $tool is missing (make test-deps installs it)" >&2; exit 1; }
done
$PYTHON -c 'import selenium' 2>/dev/null || { echo "web bench: python3-selenium is missing (make test-deps)" >&2; exit 1; }

work=$(mktemp -d /tmp/confab-webbench.XXXXXX)
namespaces=()
pids=()
source Tests/LAN/namespaces.sh
cleanup() {
    lan_teardown
    rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "web bench: interrupted" >&2; exit 130' INT TERM

if ! lan_create "wb$$" "$subnet" 3; then
    echo "web bench: skipped, cannot create network namespaces here (needs root and iproute2)"
    exit 0
fi
alice=wb$$h1 bob=wb$$h2 driver=wb$$h3

fixture=${CONFAB_WEB_FIXTURE:-$work/fixture}
parts=${PARTS:-list,live,tabs}
if [[ $parts == *list* ]]; then
    [[ -x $bench ]] || { echo "web bench: no confab-bench beside $confab (swift build -c release --product confab-bench)" >&2; exit 1; }
    if [[ ! -f $fixture/identity.key ]]; then
        mkdir -p "$fixture"
        "$bench" --web-fixture "$fixture"
    fi
    # The floors that need no browser: the store's reads and their JSON, and the terminal
    # chat's first frame on the same data directory (it serves the web app while it runs, so
    # in a namespace: alice's, before her node starts).
    ip netns exec "$alice" "$bench" --web-floors "$fixture" >"$work/floors.txt"
fi

drive() {
    ip netns exec "$driver" $PYTHON Bench/web_bench.py drive --fixture "$fixture" --work "$work" \
        --alice "$alice" --bob "$bob" --subnet "$subnet" --runs "${RUNS:-7}" --messages "${MESSAGES:-40}" \
        --tabs "${TABS:-100}" --flood "${FLOOD:-2000}" --rate "${RATE:-200}" "$@"
}
before=${BEFORE:+$(realpath "$BEFORE")}
if [[ -n $before && $parts == *list* ]]; then
    # The list and the opens with the other build first, on the same data directory.
    drive --confab "$before" --parts list --out "$work/before.json"
fi
drive --confab "$confab" --parts "$parts" --out "$work/report.json" ${PROFILE:+--profile "$(realpath -m "$PROFILE")"} \
    ${PROFILE:+--page-profile "$(realpath -m "$PROFILE")"} ${PIN:+--pin}
if [[ -n ${PROFILE:-} && -f $PROFILE/tabs.data ]]; then
    # Inclusive shares of the node's functions while it served the sockets.
    perf report -i "$PROFILE/tabs.data" --children --sort symbol --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' |
        head -60 | cut -c1-180 >"$PROFILE/tabs.txt" || true
    echo "web bench: where the node's CPU went while it served the sockets: $PROFILE/tabs.txt"
fi
[[ -z ${KEEP:-} ]] || cp "$work/report.json" "$KEEP"
[[ -z ${KEEP:-} || ! -f $work/before.json ]] || cp "$work/before.json" "${KEEP%.json}.before.json"
$PYTHON Bench/web_bench.py table "$work/report.json" "$work/floors.txt" "$work/before.json"
