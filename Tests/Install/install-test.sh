#!/usr/bin/env bash
# make install into a scratch DESTDIR, checked as a user would use it, then make uninstall,
# which must leave nothing; then make deb, its control fields and files checked with dpkg-deb.
# make test runs it once `make release` has staged the release build (docs/install.md).
#
#   Tests/Install/install-test.sh
#
# With INSTALL_TEST_SYSTEM=1 (as root, on a machine without a confab package) it also
# installs the package with apt, runs `confab --version` and `man confab`, and purges it.
set -euo pipefail
cd "$(dirname "$0")/../.."

failures=0
fail() {
    echo "install-test: FAIL: $*" >&2
    failures=$((failures + 1))
}
check() { # DESCRIPTION COMMAND…: the command must succeed
    local description=$1
    shift
    if "$@"; then echo "  ok: $description"; else fail "$description"; fi
}

scratch=$(mktemp -d /tmp/confab-install-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
release=$(Packaging/version.sh)

echo "== make install DESTDIR=$scratch/root (PREFIX=/usr/local)"
mkdir "$scratch/root"
make --no-print-directory install DESTDIR="$scratch/root" >"$scratch/install.log" 2>&1 || {
    cat "$scratch/install.log" >&2
    echo "install-test: make install failed" >&2
    exit 1
}
prefix=$scratch/root/usr/local
bin=$prefix/bin/confab

# The binary runs with nothing of the Swift toolchain to find: no PATH to it, no library path.
version=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH= "$bin" --version 2>&1) || true
check "the installed confab --version says $release (got \"$version\")" \
    test "${version%% *}" = "$release"
check "the installed binary links no Swift library and misses none" \
    bash -c "! ldd '$bin' | grep -E 'libswift|libFoundation|libdispatch|not found'"
check "the installed binary is stripped (no symbol table)" bash -c "! readelf -S '$bin' | grep -q '\.symtab'"

# Man pages: one per command, rendered by man, naming their subcommands.
man1=$prefix/share/man/man1
page=$(MANWIDTH=100 LANG=C.UTF-8 man -l "$man1/confab.1.gz" 2>&1) || fail "man -l confab.1.gz failed: $page"
check "man confab renders its name and synopsis" grep -q "confab subcommand" <<<"$page"
check "man confab names the send subcommand (confab.send(1))" grep -q "confab.send(1)" <<<"$page"
check "man confab keeps the em dash of the abstract (no character beyond ASCII lost)" \
    grep -q "one LAN — no server" <<<"$page"
send=$(MANWIDTH=100 LANG=C.UTF-8 man -l "$man1/confab.send.1.gz" 2>&1) || fail "man -l confab.send.1.gz failed"
check "man confab.send describes send and its --wait option" \
    bash -c 'grep -q "confab send" <<<"$1" && grep -q -- "--wait" <<<"$1"' _ "$send"
subcommands=$("$bin" --help | awk '/^SUBCOMMANDS:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
for subcommand in $subcommands; do
    [[ -f $man1/confab.$subcommand.1.gz ]] || fail "no man page for confab $subcommand"
done
echo "  ok: a man page for each of the $(wc -w <<<"$subcommands") subcommands of confab --help"

# Completions: present, parsed by their shell, and bash's completes a subcommand.
bash_completion=$prefix/share/bash-completion/completions/confab
for file in "$bash_completion" "$prefix/share/zsh/site-functions/_confab" \
    "$prefix/share/fish/vendor_completions.d/confab.fish"; do
    check "$(basename "$file") is installed and not empty" test -s "$file"
done
check "the bash completion parses (bash -n)" bash -n "$bash_completion"
check "the zsh completion declares itself for confab" grep -q '^#compdef confab' "$prefix/share/zsh/site-functions/_confab"
check "the fish completion completes confab" grep -q "^complete -c 'confab' " "$prefix/share/fish/vendor_completions.d/confab.fish"
# zsh and fish parse theirs where they are installed (make test does not install them).
if command -v zsh >/dev/null; then check "the zsh completion parses (zsh -n)" zsh -n "$prefix/share/zsh/site-functions/_confab"; fi
if command -v fish >/dev/null; then check "the fish completion parses (fish -n)" fish -n "$prefix/share/fish/vendor_completions.d/confab.fish"; fi
completed=$(PATH=$prefix/bin:$PATH bash --norc --noprofile -c '
    source "$1"
    COMP_WORDS=(confab send-f); COMP_CWORD=1; COMP_LINE="confab send-f"; COMP_POINT=${#COMP_LINE}
    _confab confab send-f confab 2>/dev/null
    printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_completion")
check "bash completes \"confab send-f\" to send-file (got: ${completed//$'\n'/ })" grep -qx "send-file" <<<"$completed"

# The relay's unit runs the installed binary.
unit=$prefix/share/confab/confab-relay.service
check "the relay's unit is in share/confab, ExecStart= running /usr/local/bin/confab" \
    grep -q '^ExecStart=/usr/local/bin/confab .*relay' "$unit"

echo "== make install with PREFIX=/opt/confab: the unit follows the prefix"
mkdir "$scratch/opt"
make --no-print-directory install DESTDIR="$scratch/opt" PREFIX=/opt/confab >"$scratch/install-opt.log" 2>&1 ||
    fail "make install PREFIX=/opt/confab failed: $(tail -5 "$scratch/install-opt.log")"
check "ExecStart= runs /opt/confab/bin/confab" \
    grep -q '^ExecStart=/opt/confab/bin/confab ' "$scratch/opt/opt/confab/share/confab/confab-relay.service"
check "no file of that install is outside /opt/confab" \
    test -z "$(cd "$scratch/opt" && find . -type f ! -path './opt/confab/*')"

echo "== make uninstall removes what make install put, and nothing else"
touch "$scratch/opt/opt/confab/share/man/man1/someone-elses.1"
make --no-print-directory uninstall DESTDIR="$scratch/opt" PREFIX=/opt/confab >"$scratch/uninstall-opt.log" 2>&1 ||
    fail "make uninstall PREFIX=/opt/confab failed: $(cat "$scratch/uninstall-opt.log")"
check "a file make install did not put there stays, with its directory" \
    test "$(cd "$scratch/opt" && find . -type f)" = "./opt/confab/share/man/man1/someone-elses.1"
check "uninstall says it kept that directory" grep -q "kept .*/share/man/man1" "$scratch/uninstall-opt.log"
make --no-print-directory uninstall DESTDIR="$scratch/root" >"$scratch/uninstall.log" 2>&1 ||
    fail "make uninstall failed: $(cat "$scratch/uninstall.log")"
left=$(cd "$scratch/root" && find . -mindepth 1)
check "nothing is left in DESTDIR after make uninstall${left:+ (left: ${left//$'\n'/ })}" test -z "$left"
if make --no-print-directory uninstall DESTDIR="$scratch/root" >"$scratch/uninstall-again.log" 2>&1; then
    fail "make uninstall with nothing installed succeeded"
else
    check "make uninstall with nothing installed says to use the install's PREFIX" \
        grep -q "run make uninstall with the PREFIX" "$scratch/uninstall-again.log"
fi

echo "== make deb"
rm -f dist/confab_*.deb
make --no-print-directory deb >"$scratch/deb.log" 2>&1 || {
    cat "$scratch/deb.log" >&2
    echo "install-test: make deb failed" >&2
    exit 1
}
debian_version=$(Packaging/version.sh --debian)
arch=$(dpkg --print-architecture)
deb=dist/confab_${debian_version}_${arch}.deb
check "make deb built $deb" test -f "$deb"
field() { dpkg-deb --field "$deb" "$1"; }
check "Package: confab" test "$(field Package)" = confab
check "Version: $debian_version (from $release)" test "$(field Version)" = "$debian_version"
check "the version is one Debian accepts and sorts before the release" \
    dpkg --compare-versions "$debian_version" le "${release%%-*}"
check "Architecture: $arch" test "$(field Architecture)" = "$arch"
depends=$(field Depends)
for package in libsodium23 libsqlite3-0 libqrencode4 libc6; do
    check "Depends names $package ($depends)" grep -qE "(^|, )$package( |,|$)" <<<"$depends"
done
check "Depends names nothing of Swift" bash -c "! grep -qi swift <<<'$depends'"
check "a Maintainer with an address" grep -qE '^.+ <.+@.+>$' <<<"$(field Maintainer)"
contents=$(dpkg-deb --contents "$deb" | awk '{print $NF}')
for path in ./usr/bin/confab ./usr/share/man/man1/confab.1.gz ./usr/share/man/man1/confab.send.1.gz \
    ./usr/share/bash-completion/completions/confab ./usr/share/zsh/vendor-completions/_confab \
    ./usr/share/fish/vendor_completions.d/confab.fish ./lib/systemd/system/confab-relay.service \
    ./usr/share/doc/confab/copyright; do
    check "the package holds $path" grep -qx -- "$path" <<<"$contents"
done
check "the package holds no install manifest" bash -c "! grep -q install-manifest <<<\"\$1\"" _ "$contents"
check "every file in the package belongs to root" \
    bash -c "! dpkg-deb --contents '$deb' | awk '{print \$2}' | grep -v '^root/root$'"
mkdir "$scratch/deb"
dpkg-deb --extract "$deb" "$scratch/deb"
check "its unit's ExecStart= runs /usr/bin/confab" \
    grep -q '^ExecStart=/usr/bin/confab .*relay' "$scratch/deb/lib/systemd/system/confab-relay.service"
version=$(env -i PATH=/usr/bin:/bin "$scratch/deb/usr/bin/confab" --version 2>&1) || true
check "its confab --version says $release" test "${version%% *}" = "$release"
dpkg-deb --control "$deb" "$scratch/control"
check "postinst tells systemd of the unit only when systemd runs" \
    grep -q 'if \[ "$1" = configure \] && \[ -d /run/systemd/system \]' "$scratch/control/postinst"
for script in postinst prerm postrm; do
    check "$script parses (sh -n)" sh -n "$scratch/control/$script"
done

if [[ ${INSTALL_TEST_SYSTEM:-} == 1 ]]; then
    echo "== apt install ./$deb (INSTALL_TEST_SYSTEM=1)"
    if dpkg-query -W -f='${Status}' confab 2>/dev/null | grep -q "install ok installed"; then
        fail "a confab package is already installed here: not replacing it (apt remove confab first)"
    else
        apt-get install -y -qq "./$deb" >"$scratch/apt.log" 2>&1 || fail "apt install failed: $(tail -5 "$scratch/apt.log")"
        check "confab on the PATH is /usr/bin/confab" test "$(command -v confab)" = /usr/bin/confab
        check "confab --version says $release" bash -c "confab --version | grep -q '^$release '"
        check "man confab shows the page" bash -c "MANWIDTH=100 man confab 2>/dev/null | grep -q 'confab.send(1)'"
        apt-get purge -y -qq confab >>"$scratch/apt.log" 2>&1 || fail "apt purge failed"
        check "apt purge took /usr/bin/confab away" test ! -e /usr/bin/confab
    fi
fi

if ((failures > 0)); then
    echo "install-test: $failures check(s) failed (see above)" >&2
    exit 1
fi
echo "install-test: every check passed"
