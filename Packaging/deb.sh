#!/usr/bin/env bash
# Builds OUT/confab_<version>_<arch>.deb from ROOT, a tree `make install` staged with
# DESTDIR=ROOT PREFIX=/usr UNITDIR=/lib/systemd/system (make deb does both). The version is the
# release's (Packaging/version.sh --debian), Depends what dpkg-shlibdeps finds the binary
# needs (libsodium23, libsqlite3-0, libqrencode4, libc6, libstdc++6, libgcc-s1: the Swift runtime is linked
# in), and the maintainer scripts in Packaging/debian tell systemd of the relay's unit.
#
#   Packaging/deb.sh ROOT OUT
#
# DEB_MAINTAINER ("Name <email>") names the maintainer; by default the last commit's author.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(realpath "${1:?usage: deb.sh ROOT OUT}")
out=${2:?usage: deb.sh ROOT OUT}

fail() {
    echo "deb: $*" >&2
    exit 1
}

for tool in dpkg-deb dpkg-shlibdeps; do
    command -v $tool >/dev/null || fail "$tool is missing: apt-get install dpkg-dev (make deb installs it)"
done
[[ -x $root/usr/bin/confab ]] || fail "no $root/usr/bin/confab: stage with make install DESTDIR=$root PREFIX=/usr"
[[ -f $root/lib/systemd/system/confab-relay.service ]] ||
    fail "no relay unit in $root/lib/systemd/system: stage with UNITDIR=/lib/systemd/system"

version=$(Packaging/version.sh --debian)
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || true)}
[[ $maintainer =~ ^[^\<]+\ \<[^\>]+@[^\>]+\>$ ]] ||
    fail "no maintainer: set DEB_MAINTAINER='Name <email>' (by default the last commit's author)"

# dpkg tracks the package's files itself: the install manifest is not shipped.
rm -f "$root/usr/share/confab/install-manifest"
rmdir --ignore-fail-on-non-empty "$root/usr/share/confab" 2>/dev/null || true

# What Debian asks of every package: the copyright, and the upstream changelog.
install -d -m 0755 "$root/usr/share/doc/confab"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: confab"
    echo
    echo "Files: *"
    echo "Copyright: $(sed -n 's/^Copyright (c) //p' LICENSE | head -1)"
    echo "License: MIT"
    sed -n '/^Permission/,$p' LICENSE | sed 's/^$/./; s/^/ /'
} >"$root/usr/share/doc/confab/copyright"
gzip -9n <CHANGELOG.md >"$root/usr/share/doc/confab/changelog.gz"
chmod 0644 "$root/usr/share/doc/confab/copyright" "$root/usr/share/doc/confab/changelog.gz"

# Depends: the packages holding the libraries the binary links, as dpkg-shlibdeps reads them
# from the installed system (it needs a debian/control to run in).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/debian"
printf 'Source: confab\n\nPackage: confab\nArchitecture: any\n' >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e"$root/usr/bin/confab" 2>"$work/shlibdeps.err") ||
    fail "dpkg-shlibdeps failed: $(cat "$work/shlibdeps.err")"
depends=${depends#shlibs:Depends=}
for needed in libsodium23 libsqlite3-0 libqrencode4; do
    [[ $depends == *"$needed "* || $depends == *"$needed," || $depends == *"$needed" ]] ||
        fail "the binary does not link $needed (dpkg-shlibdeps found: $depends)"
done
if [[ $depends == *libswift* ]]; then fail "the binary links the Swift runtime ($depends): build with --static-swift-stdlib"; fi

rm -rf "$root/DEBIAN"
install -d -m 0755 "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: confab
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: net
Priority: optional
Description: peer-to-peer chat for machines on one LAN
 Confab is a chat with no server, no account and no internet: each person
 runs a node that finds the others on the LAN, keeps every conversation in
 its own SQLite file and syncs end-to-end encrypted, signed logs with them.
 It has a full-screen terminal chat, commands with JSON output for scripts,
 groups, files, and relays that store and forward for people who are away.
 .
 The relay's systemd unit is installed, not enabled:
 systemctl enable --now confab-relay
CONTROL
for script in postinst prerm postrm; do
    install -m 0755 "Packaging/debian/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
    >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/confab_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "built $deb ($(du -h "$deb" | cut -f1)): Depends: $depends"
