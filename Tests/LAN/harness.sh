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
