# Sourced by the tests in Tests/LAN: what each needs to say what it checks and to wait for
# real processes. The sourcing script sets LAN_NAME (the prefix of its lines) and keeps the
# counts in `passed` and `failed`; if it defines `on_failure`, that runs after each failed
# check (to show logs).

log() { echo "$LAN_NAME: $*"; }

# wait_for SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds, or says what it waited
# for and fails after SECONDS.
wait_for() {
    local seconds=$1 what=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    while ((SECONDS < deadline)); do
        if "$@"; then return 0; fi
        sleep 0.1
    done
    echo "$LAN_NAME: timed out after ${seconds}s waiting for $what" >&2
    return 1
}

# check DESCRIPTION COMMAND...: one line, ok or FAILED, and the count.
check() {
    local what=$1
    shift
    if "$@"; then
        log "ok: $what"
        passed=$((passed + 1))
    else
        log "FAILED: $what"
        failed=$((failed + 1))
        if declare -F on_failure >/dev/null; then on_failure; fi
    fi
}

# lan_begin SUBNET HOSTS: the namespace LAN of a test script (lan_create, with the caller's
# `tag`), torn down on exit with everything the script started: the processes in `pids`
# (TERM, then KILL), the namespaces, the neighbour tables and the `work` directory. Where
# namespaces cannot be made (no root, no iproute2) the script stops here: skipped with a
# message, or failed under CI=true.
lan_begin() {
    trap lan_end EXIT
    if ! lan_create "$tag" "$1" "$2"; then
        if [[ "${CI:-}" == "true" ]]; then
            echo "$LAN_NAME: cannot create network namespaces (need root and iproute2)" >&2
            exit 1
        fi
        log "skipped: cannot create network namespaces here (need root and iproute2)"
        exit 0
    fi
}
lan_end() {
    local ns
    lan_stop "${pids[@]}"
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    lan_restore_neighbours
    rm -rf "$work"
}
