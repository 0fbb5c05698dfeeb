#!/usr/bin/env bash
# Removes what Packaging/install.sh put under DESTDIR + PREFIX, as its manifest lists it: each
# file, the manifest, then each directory the install made, deepest first, if it is empty.
#
#   PREFIX=/usr/local DESTDIR= Packaging/uninstall.sh      (make uninstall)
set -euo pipefail
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
[[ -z $DESTDIR || $DESTDIR == /* ]] || DESTDIR=$(realpath -m "$DESTDIR")
manifest=$DESTDIR$PREFIX/share/confab/install-manifest

[[ -f $manifest ]] || {
    echo "uninstall: no $manifest: make install put nothing under ${DESTDIR}$PREFIX —" \
        "run make uninstall with the PREFIX (and DESTDIR) you installed with" >&2
    exit 1
}

safe() { [[ $1 == /* && /$1/ != */../* ]]; }

directories=()
removed=0
while read -r kind path; do
    [[ $kind == file || $kind == dir ]] || continue
    safe "$path" || {
        echo "uninstall: $manifest lists \"$path\", not an absolute path: left alone" >&2
        continue
    }
    if [[ $kind == file ]]; then
        if [[ -e $DESTDIR$path || -L $DESTDIR$path ]]; then
            rm -f -- "$DESTDIR$path"
            removed=$((removed + 1))
        fi
    else
        directories+=("$path")
    fi
done <"$manifest"
rm -f -- "$manifest"

# Deepest first, so a directory's own directories are gone before it.
kept=()
while IFS= read -r directory; do
    [[ -d $DESTDIR$directory ]] || continue
    rmdir -- "$DESTDIR$directory" 2>/dev/null || kept+=("$directory")
done < <(for d in "${directories[@]}"; do
    slashes=${d//[^\/]/}
    echo "${#slashes} $d"
done | sort -rn | cut -d' ' -f2-)

echo "removed $removed files from ${DESTDIR}$PREFIX"
for directory in "${kept[@]}"; do
    echo "kept ${DESTDIR}$directory: it holds files make install did not put there"
done
