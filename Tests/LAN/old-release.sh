#!/usr/bin/env bash
# Builds the `confab` of an earlier release, once: its source is the committed
# Tests/Fixtures/Releases/TAG.tar.xz (CI's clone has no tags; make-source.sh made it from the
# tag), unpacked into .build/releases/TAG, and the binary is kept there for the next run.
# Prints the binary's path.
#
#   Tests/LAN/old-release.sh v0.1.0
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:?usage: old-release.sh TAG}
source=Tests/Fixtures/Releases/$tag.tar.xz
dir=.build/releases/$tag
bin=$dir/.build/debug/confab
if [[ ! -x $bin ]]; then
    [[ -f $source ]] || {
        echo "old-release: no $source (make it with Tests/Fixtures/Releases/make-source.sh $tag)" >&2
        exit 1
    }
    rm -rf "$dir"
    mkdir -p "$dir"
    tar -xJf "$source" -C "$dir"
    (cd "$dir" && swift build --product confab >build.log 2>&1) || {
        tail -30 "$dir/build.log" >&2
        echo "old-release: building $tag failed (whole log in $dir/build.log)" >&2
        exit 1
    }
fi
realpath "$bin"
