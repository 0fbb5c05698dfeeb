#!/usr/bin/env bash
# The web app in a real browser (Debian's chromium through Selenium and chromium-driver):
# two nodes run `confab up` with its defaults on a LAN of network namespaces, each with a
# browser in its own namespace on the app's default address, http://127.0.0.1:7462/; the
# test drives both from a third host on the LAN (Tests/Web/web_test.py); a fourth host runs
# a node without a browser, for the person added to a group and removed; on a fifth, the
# machines Alice links to hers and removes (`confab devices link`). Screenshots of a
# failing step are kept in .build/web-test/. Then the main steps again in Firefox (below).
#   CONFAB=.build/debug/confab Tests/Web/web-test.sh [--screenshot FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFAB=${CONFAB:-.build/debug/confab}
source Tests/LAN/namespaces.sh

# Debian's python3, which python3-selenium installs into (a python3 earlier on PATH, such as
# pyenv's, does not see it).
PYTHON=/usr/bin/python3
for tool in chromium chromedriver $PYTHON zbarimg; do
    command -v "$tool" >/dev/null || { echo "web test: $tool is missing (make test-deps installs it)" >&2; exit 1; }
done
$PYTHON -c 'import selenium' 2>/dev/null || { echo "web test: python3-selenium is missing (make test-deps)" >&2; exit 1; }

namespaces=()
tag=wb$$
cleanup() {
    local ns
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}
trap cleanup EXIT
lan_create "$tag" 10.231.7 5 || { echo "web test: cannot create network namespaces (needs root)" >&2; exit 1; }
mkdir -p .build/web-test
ip netns exec "${tag}h3" $PYTHON Tests/Web/web_test.py --confab "$(realpath "$CONFAB")" \
    --alice "${tag}h1" --bob "${tag}h2" --carol "${tag}h4" --laptop "${tag}h5" --subnet 10.231.7 --artifacts .build/web-test "$@"

# The same app in Firefox (Tests/Web/firefox_test.py): Debian's firefox-esr over WebDriver BiDi,
# spoken by Tests/Web/bidi.py (there is no geckodriver package; nothing is downloaded). Fresh
# nodes on hosts 1 and 2; Firefox and the script in host 1's namespace, as Firefox's Remote
# Agent listens on loopback only. Missing Firefox is a skip here and a failure in CI.
if ! command -v firefox-esr >/dev/null || ! $PYTHON -c 'import websocket' 2>/dev/null; then
    if [[ ${CI:-} == true ]]; then
        echo "web test: firefox-esr or python3-websocket is missing (make test-deps installs them)" >&2
        exit 1
    fi
    echo "web test: Firefox skipped: firefox-esr or python3-websocket is missing (make test-deps installs them)"
    exit 0
fi
ip netns exec "${tag}h1" $PYTHON Tests/Web/firefox_test.py --confab "$(realpath "$CONFAB")" \
    --alice "${tag}h1" --bob "${tag}h2" --artifacts .build/web-test
