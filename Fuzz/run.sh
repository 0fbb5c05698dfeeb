#!/usr/bin/env bash
# Builds the libFuzzer targets of this package and runs each one for SECONDS seconds.
#
#   Fuzz/run.sh SECONDS [TARGET...]
#   FUZZ_RUNS=10000000 FUZZ_KEEP_CORPUS=1 Fuzz/run.sh 86400   (make fuzz-long)
#
# FUZZ_RUNS stops each fuzzer after that many executions instead (SECONDS still bounds
# it); FUZZ_BUILD_ONLY=1 builds them and runs none. The corpus kept in the repository, Fuzz/Corpus/<target>, seeds every run; with
# FUZZ_KEEP_CORPUS=1 new inputs go there, and the result is minimised (libFuzzer -merge)
# so that it stays small enough to commit.
#
# Every executable target in Fuzz/Package.swift is a fuzzer and is found automatically
# (from `swift package describe`), so adding a target there is all a new fuzzer needs;
# naming TARGETs runs only those. Corpora persist between runs in .build/fuzz/corpus/<target>
# (inside Fuzz/.build, which git ignores); inputs that crash, leak or hang are saved in
# .build/fuzz/artifacts/<target>/ and the log in .build/fuzz/logs/<target>.log.
# Exits non-zero if the build fails or any fuzzer fails.
set -euo pipefail

usage() { echo "usage: $0 SECONDS [TARGET...]" >&2; exit 2; }
[[ $# -ge 1 && "$1" =~ ^[1-9][0-9]*$ ]] || usage
seconds=$1
shift

cd "$(dirname "$0")"
work=.build/fuzz

# -c release: optimised code runs 1.2x (crypto-bound targets) to 2.6x (FuzzBoxStream) more
# executions per second than a debug build; the product has no assert() or #if DEBUG that
# -O would drop, and preconditions, overflow traps, bounds checks and ASan all stay.
# -enable-testing: FuzzSyncSession reads the store's connection through @testable import.
# -parse-as-library: the targets have no top-level code, libFuzzer drives them.
# -use-ld=lld: gold also links them but prints a warning per ASan helper symbol.
#
# FUZZ_CONFIG=debug builds them unoptimised instead: CI's few seconds per fuzzer are a smoke
# test, and a debug build of the package and its dependencies takes a fraction of the time.
config=${FUZZ_CONFIG:-release}
[[ "$config" == release || "$config" == debug ]] || { echo "FUZZ_CONFIG is release or debug" >&2; exit 2; }
build_flags=(-c "$config" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld
    -Xswiftc -enable-testing)
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(swift package describe --type json | python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    if target["type"] == "executable":
        print(target["name"])
' | sort)
fi
[[ ${#targets[@]} -gt 0 ]] || { echo "no fuzz targets found" >&2; exit 1; }

# What the binaries are built from: every source they compile, the flags and the targets.
# A build that finished writes it beside them, and a later run with the same sources skips
# swift build (about ten seconds of planning per product even when nothing changed).
fingerprint=$( { (cd .. && find Package.swift Sources Fuzz/Package.swift Fuzz/Sources -type f -print0 \
    | sort -z | xargs -0 sha256sum); echo "${build_flags[*]}" "${targets[*]}"; } | sha256sum | cut -d' ' -f1)
stamp=$work/built
if [[ -f "$stamp" && "$(sed -n 1p "$stamp")" == "$fingerprint" && -d "$(sed -n 2p "$stamp")" ]]; then
    bin_dir=$(sed -n 2p "$stamp")
    echo "== fuzzers already built from these sources ($bin_dir)"
else
    rm -f "$stamp"
    # Each fuzzer is built as its own product: a plain `swift build` here may also build the
    # parent package's executables (confab, confab-bench), which -parse-as-library breaks.
    echo "== building fuzzers"
    for target in "${targets[@]}"; do swift build "${build_flags[@]}" --product "$target"; done
    bin_dir=$(swift build "${build_flags[@]}" --show-bin-path)
    mkdir -p "$work"
    printf '%s\n%s\n' "$fingerprint" "$bin_dir" >"$stamp"
fi
# FUZZ_BUILD_ONLY=1: build and stop (CI builds them while the suites wait on processes).
[[ "${FUZZ_BUILD_ONLY:-}" == 1 ]] && exit 0

# Each target fuzzes in its own process: FUZZ_JOBS of them at once (the machine's cores by
# default), each writing its report to a file, printed in order once all are done.
fuzz_one() {
    local target=$1 report=$2
    local binary="$bin_dir/$target"
    local corpus="$work/corpus/$target"
    local artifacts="$work/artifacts/$target"
    local log="$work/logs/$target.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    if [[ ! -x "$binary" ]]; then
        echo "== $target: no binary at $binary" >"$report"
        return 1
    fi
    local seed="Corpus/$target"
    mkdir -p "$seed"
    local dirs=("$corpus" "$seed")
    [[ "${FUZZ_KEEP_CORPUS:-}" == 1 ]] && dirs=("$seed")
    local limits=(-max_total_time="$seconds")
    # Per-target sanitizer options (FuzzSyncSession keeps one store for the whole run, whose
    # statement cache LeakSanitizer cannot follow through Swift's tagged pointers).
    local asan_options=""
    [[ -f "Sources/$target/asan.options" ]] && asan_options=$(<"Sources/$target/asan.options")
    [[ -n "${FUZZ_RUNS:-}" ]] && limits+=(-runs="$FUZZ_RUNS")
    echo "== $target: fuzzing for ${seconds}s${FUZZ_RUNS:+ or $FUZZ_RUNS runs} (corpus ${dirs[*]})" >"$report"
    # -timeout: an input that takes over FUZZ_TIMEOUT s (10 by default) counts as a hang,
    # i.e. a failure. It is wall-clock time: a long run at low priority on a busy machine
    # can be kept off the CPU that long (FuzzHandshake "hung" once at 7.1 million runs on an
    # input that replays in milliseconds), so such a run may want more.
    if ASAN_OPTIONS="$asan_options" "$binary" "${limits[@]}" -timeout="${FUZZ_TIMEOUT:-10}" -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "${dirs[@]}" >"$log" 2>&1; then
        echo "   ok: $(grep -m1 -E '^Done [0-9]+ runs' "$log" || echo 'finished')," \
            "corpus $(find "${dirs[0]}" -type f | wc -l) inputs" >>"$report"
        if [[ "${FUZZ_KEEP_CORPUS:-}" == 1 ]]; then
            rm -rf "$seed.min" && mkdir -p "$seed.min"
            ASAN_OPTIONS="$asan_options" "$binary" -merge=1 "$seed.min" "$seed" >>"$log" 2>&1 && rm -rf "$seed" && mv "$seed.min" "$seed"
            echo "   corpus minimised to $(find "$seed" -type f | wc -l) inputs in $seed" >>"$report"
        fi
        return 0
    else
        local status=$?
        {
            echo "   FAILED (exit $status); last lines of $log:"
            tail -n 40 "$log"
            echo "   saved inputs: $(ls "$artifacts" 2>/dev/null | tr '\n' ' ')"
        } >>"$report"
        return 1
    fi
}

jobs=${FUZZ_JOBS:-$(nproc)}
reports=$(mktemp -d)
declare -A running=()
for target in "${targets[@]}"; do
    while ((${#running[@]} >= jobs)); do
        wait -n || true
        for pid in "${!running[@]}"; do kill -0 "$pid" 2>/dev/null || unset "running[$pid]"; done
    done
    fuzz_one "$target" "$reports/$target" && touch "$reports/$target.ok" &
    running[$!]=$target
done
wait || true
passed=0
failed=0
for target in "${targets[@]}"; do
    if [[ -f "$reports/$target.ok" ]]; then
        cat "$reports/$target"
        passed=$((passed + 1))
    else
        cat "$reports/$target" >&2 2>/dev/null || echo "== $target: no report" >&2
        failed=$((failed + 1))
    fi
done
rm -rf "$reports"

echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
