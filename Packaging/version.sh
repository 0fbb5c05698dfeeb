#!/usr/bin/env bash
# Prints the release this tree builds, as `confab --version` names it (Sources/confab/Release.swift),
# or with --debian as a Debian version: "0.2.0-dev" becomes "0.2.0~dev", which sorts before 0.2.0.
#
#   Packaging/version.sh [--debian]
set -euo pipefail
cd "$(dirname "$0")/.."
number=$(sed -n 's/^ *static let number = "\([^"]*\)".*/\1/p' Sources/confab/Release.swift)
[[ -n $number ]] || {
    echo "version: no 'static let number = \"…\"' in Sources/confab/Release.swift (where the release is named)" >&2
    exit 1
}
if [[ ${1:-} == --debian ]]; then
    # Debian versions have no '-' without a revision; '~' sorts a pre-release before its release.
    debian=${number//-/\~}
    [[ $debian =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || {
        echo "version: \"$number\" does not make a Debian version (digits first, then letters, digits, . + ~)" >&2
        exit 1
    }
    echo "$debian"
else
    echo "$number"
fi
