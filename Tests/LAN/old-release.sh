#!/usr/bin/env bash
# Builds the `confab` of an earlier release from its tag, once: the source comes from
# `git archive TAG` (no worktree left registered) into .build/releases/TAG, and the binary is
# kept there for the next run. Prints the binary's path.
#
#   Tests/LAN/old-release.sh v0.1.0
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:?usage: old-release.sh TAG}
dir=.build/releases/$tag
bin=$dir/.build/debug/confab
if [[ ! -x $bin ]]; then
    commit=$(git rev-parse --verify --quiet "$tag^{commit}") || {
        echo "old-release: no tag $tag in this clone (git fetch --tags)" >&2
        exit 1
    }
    rm -rf "$dir"
    mkdir -p "$dir"
    git archive "$commit" | tar -x -C "$dir"
    (cd "$dir" && swift build --product confab >build.log 2>&1) || {
        tail -30 "$dir/build.log" >&2
        echo "old-release: building $tag failed (whole log in $dir/build.log)" >&2
        exit 1
    }
fi
realpath "$bin"
