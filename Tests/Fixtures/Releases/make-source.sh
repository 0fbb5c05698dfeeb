#!/usr/bin/env bash
# Keeps the source of an earlier release in the repository, for the mixed-version test:
# CI builds from a clone that has no tags (and perhaps not the history), so the release's
# Package.swift, Sources and Tests (the test targets must exist for the package to load) are
# committed as Tests/Fixtures/Releases/TAG.tar.xz. Made once per release, from its tag.
#
#   Tests/Fixtures/Releases/make-source.sh v0.1.0
set -euo pipefail
tag=${1:?usage: make-source.sh TAG}
cd "$(dirname "$0")/../../.."
out=Tests/Fixtures/Releases/$tag
commit=$(git rev-parse --verify "$tag^{commit}")
git archive --format=tar "$commit" Package.swift Sources Tests | xz -9 >"$out.tar.xz"
echo "$commit" >"$out.commit"
echo "$out.tar.xz: $(wc -c <"$out.tar.xz") bytes from $commit"
