#!/usr/bin/env bash
# Copies what make release staged into DESTDIR + PREFIX, and lists every file it put there
# (and every directory it had to make) in PREFIX/share/confab/install-manifest, which
# Packaging/uninstall.sh reads:
#
#   PREFIX/bin/confab
#   PREFIX/share/man/man1/confab*.1.gz
#   PREFIX/share/bash-completion/completions/confab
#   ZSHDIR/_confab                 (ZSHDIR: PREFIX/share/zsh/site-functions unless set)
#   PREFIX/share/fish/vendor_completions.d/confab.fish
#   UNITDIR/confab-relay.service   (UNITDIR: PREFIX/share/confab unless set; ExecStart= runs
#                                   PREFIX/bin/confab)
#
#   STAGE=.build/stage PREFIX=/usr/local DESTDIR= Packaging/install.sh      (make install)
set -euo pipefail
cd "$(dirname "$0")/.."
STAGE=${STAGE:-.build/stage}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
UNITDIR=${UNITDIR:-$PREFIX/share/confab}
ZSHDIR=${ZSHDIR:-$PREFIX/share/zsh/site-functions}

fail() {
    echo "install: $*" >&2
    exit 1
}

[[ $PREFIX == /* && $UNITDIR == /* && $ZSHDIR == /* ]] ||
    fail "PREFIX ($PREFIX), UNITDIR ($UNITDIR) and ZSHDIR ($ZSHDIR) must be absolute paths"
[[ -x $STAGE/bin/confab ]] || fail "nothing staged in $STAGE: run make release first (as yourself, before sudo make install)"
[[ -z $DESTDIR || $DESTDIR == /* ]] || DESTDIR=$(realpath -m "$DESTDIR")

manifest=$PREFIX/share/confab/install-manifest
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The relay's unit, its ExecStart= pointed at the binary installed here.
unit=$work/confab-relay.service
sed "s|/usr/local/bin/confab|$PREFIX/bin/confab|g" Examples/confab-relay.service >"$unit"
grep -q "^ExecStart=$PREFIX/bin/confab " "$unit" || fail "Examples/confab-relay.service has no ExecStart=/usr/local/bin/confab … to point at $PREFIX/bin/confab"

# source, destination (without DESTDIR), mode
items=("$STAGE/bin/confab" "$PREFIX/bin/confab" 0755)
for page in "$STAGE"/man/*.1.gz; do
    items+=("$page" "$PREFIX/share/man/man1/$(basename "$page")" 0644)
done
items+=(
    "$STAGE/completions/confab.bash" "$PREFIX/share/bash-completion/completions/confab" 0644
    "$STAGE/completions/_confab" "$ZSHDIR/_confab" 0644
    "$STAGE/completions/confab.fish" "$PREFIX/share/fish/vendor_completions.d/confab.fish" 0644
    "$unit" "$UNITDIR/confab-relay.service" 0644
)

# Directories an earlier install made stay ours to remove; the files it put that this one does
# not (a command since removed) go now.
declare -A made=()
declare -A placed=()
for ((i = 0; i < ${#items[@]}; i += 3)); do placed[${items[i + 1]}]=1; done
if [[ -f $DESTDIR$manifest ]]; then
    while read -r kind path; do
        case $kind in
            dir) made[$path]=1 ;;
            file) [[ -n ${placed[$path]:-} ]] || { rm -f -- "$DESTDIR$path" && echo "removed $path (no longer installed)"; } ;;
        esac
    done <"$DESTDIR$manifest"
fi

make_directory() {
    local directory=$1
    [[ -d $DESTDIR$directory ]] && return
    # DESTDIR itself is the caller's, made if need be, never listed.
    [[ $directory == / ]] && { mkdir -p "$DESTDIR"; return; }
    make_directory "$(dirname "$directory")"
    install -d -m 0755 "$DESTDIR$directory"
    made[$directory]=1
}

for ((i = 0; i < ${#items[@]}; i += 3)); do
    make_directory "$(dirname "${items[i + 1]}")"
    install -m "${items[i + 2]}" "${items[i]}" "$DESTDIR${items[i + 1]}"
done
make_directory "$(dirname "$manifest")"

{
    echo "# Installed by Confab's make install (PREFIX=$PREFIX, UNITDIR=$UNITDIR, ZSHDIR=$ZSHDIR); make"
    echo "# uninstall with the same PREFIX and DESTDIR removes each file listed, then each directory if empty."
    for ((i = 0; i < ${#items[@]}; i += 3)); do echo "file ${items[i + 1]}"; done
    for directory in "${!made[@]}"; do echo "dir $directory"; done | sort
} >"$DESTDIR$manifest"
chmod 0644 "$DESTDIR$manifest"

echo "installed $((${#items[@]} / 3)) files under ${DESTDIR}$PREFIX$([[ $UNITDIR == "$PREFIX"/* ]] || echo " and ${DESTDIR}$UNITDIR") (their list: ${DESTDIR}$manifest)"
