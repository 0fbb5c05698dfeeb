#!/usr/bin/env bash
# Stages what `make install` and `make deb` copy, from the release binary built with the Swift
# runtime linked in (`swift build -c release --static-swift-stdlib`):
#
#   STAGE/bin/confab               the binary, stripped; it needs no Swift toolchain to run
#   STAGE/man/confab*.1.gz         a man page per command, made from the commands' own help by
#                                  swift-argument-parser's generate-manual (its plugin's tool)
#   STAGE/completions/confab.bash, _confab, confab.fish
#                                  from `confab --generate-completion-script bash|zsh|fish`
#
#   Packaging/stage.sh BINARY STAGE        (make release runs it; SCRATCH is its build directory)
#
# MAN_DATE (yyyy-mm-dd) dates the man pages; by default the date of the last commit, so the
# same tree stages the same pages.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:?usage: stage.sh BINARY STAGE}
stage=${2:?usage: stage.sh BINARY STAGE}
SWIFT=${SWIFT:-swift}
SCRATCH=${SCRATCH:-.build/install}

fail() {
    echo "stage: $*" >&2
    exit 1
}

[[ -x $binary ]] || fail "no binary at $binary (make release builds it)"
command -v strip >/dev/null || fail "strip is missing: install binutils (apt-get install binutils)"
command -v perl >/dev/null || fail "perl is missing: install perl-base"

# The binary must not need the Swift toolchain's libraries: an installed confab runs on a
# machine that has none.
if ldd "$binary" | grep -E 'libswift|libFoundation|libdispatch|not found'; then
    fail "$binary needs the libraries above, which a machine without Swift lacks: build it with --static-swift-stdlib (make release does)"
fi

# Staged beside, then moved into place: a stage is there whole or not at all (make takes
# STAGE/bin/confab for the whole).
final=$stage
stage=$stage.new
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/man" "$stage/completions"
strip -o "$stage/bin/confab" "$binary"
chmod 0755 "$stage/bin/confab"
confab=$(realpath "$stage/bin/confab")
"$confab" --version >/dev/null || fail "the stripped binary does not run: $confab --version failed"

"$confab" --generate-completion-script bash >"$stage/completions/confab.bash"
"$confab" --generate-completion-script zsh >"$stage/completions/_confab"
"$confab" --generate-completion-script fish >"$stage/completions/confab.fish"

# The man pages. The GenerateManual plugin of swift-argument-parser (a dependency already
# fetched, so this works offline) builds its tool; `--help` builds it without building the
# whole package again in a configuration of the plugin's choosing.
"$SWIFT" package --scratch-path "$SCRATCH" plugin generate-manual --help >/dev/null ||
    fail "swift package plugin generate-manual failed (swift-argument-parser's manual generator, a dependency of Package.swift)"
tool="$("$SWIFT" build --scratch-path "$SCRATCH" --show-bin-path)/generate-manual-tool"
[[ -x $tool ]] || fail "the GenerateManual plugin built no tool at $tool"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# generate-manual leaves out every character beyond ASCII (an em dash, an ellipsis, an
# emoji): it reads the help through this wrapper, which writes each one as an ASCII marker
# that becomes a roff escape (\[u2014]) below.
cat >"$work/confab" <<WRAPPER
#!/bin/sh
"$confab" "\$@" | perl -CSD -pe 's/([^\\x00-\\x7f])/sprintf("\\@u%04X\\@", ord(\$1))/ge'
WRAPPER
chmod 0755 "$work/confab"
date=${MAN_DATE:-$(git log -1 --format=%cs 2>/dev/null || date -u +%F)}
mkdir "$work/man"
"$tool" "$work/confab" --multi-page --date "$date" --output-directory "$work/man" ||
    fail "generate-manual failed on $confab"
[[ -s $work/man/confab.1 ]] || fail "generate-manual wrote no confab.1"
for page in "$work"/man/*.1; do
    perl -pe 's/\@u([0-9A-F]{4,6})\@/\\[u$1]/g' "$page" | gzip -9n >"$stage/man/$(basename "$page").gz"
done
! zgrep -l '@u[0-9A-F]*@' "$stage"/man/*.gz || fail "a man page above kept a character marker"

rm -rf "$final"
mv "$stage" "$final"
echo "staged in $final: bin/confab ($("$final/bin/confab" --version)), $(ls "$final/man" | wc -l) man pages, 3 completion scripts"
