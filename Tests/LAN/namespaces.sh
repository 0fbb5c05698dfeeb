# Sourced by the scripts in Tests/LAN and Bench: a LAN made of network namespaces.
# lan_create TAG SUBNET HOSTS [MODE] makes a bridge in its own namespace (TAGbr) and HOSTS
# hosts (TAGh1 … TAGhN) joined to it by veth pairs, each host's end named eth0; every
# namespace made is appended to the caller's `namespaces` array, for its cleanup. MODE says
# how eth0 is addressed (host i):
#   broadcast    SUBNET.i/24 with the broadcast address SUBNET.255 set (the default)
#   nobroadcast  SUBNET.i/24 added without a broadcast address, as scripts often do
#   ipv6only     no IPv4 address: only the IPv6 link-local address the kernel gives it
#   dual         SUBNET.i/24 without a broadcast address, and IPv6 link-local
# In the IPv4-only modes IPv6 is disabled in the host, so only the IPv4 path can work.
# Returns 1, having made nothing, where namespaces cannot be created (no root or no
# iproute2).
lan_create() {
    local tag=$1 subnet=$2 hosts=$3 mode=${4:-broadcast} i ns
    ip netns add "${tag}br" 2>/dev/null || return 1
    lan_neighbour_room "$hosts"
    namespaces+=("${tag}br")
    ip netns exec "${tag}br" ip link set lo up
    ip netns exec "${tag}br" ip link add br0 type bridge
    ip netns exec "${tag}br" ip link set br0 up
    for i in $(seq 1 "$hosts"); do
        ns="${tag}h$i"
        ip netns add "$ns"
        namespaces+=("$ns")
        ip link add "e$i$tag" netns "$ns" type veth peer name "p$i$tag" netns "${tag}br"
        ip netns exec "$ns" ip link set lo up
        ip netns exec "$ns" ip link set "e$i$tag" name eth0
        lan_address "$ns" "$subnet.$i" "$subnet.255" "$mode"
        ip netns exec "$ns" ip link set eth0 up
        ip netns exec "${tag}br" ip link set "p$i$tag" master br0
        ip netns exec "${tag}br" ip link set "p$i$tag" up
    done
}

# lan_address NAMESPACE ADDRESS BROADCAST MODE: addresses the namespace's eth0 (see above).
lan_address() {
    local ns=$1 address=$2 broadcast=$3 mode=$4
    case $mode in
        broadcast | nobroadcast)
            ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
            ;;
        *)
            # No duplicate address detection: the link-local address is usable at once.
            ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0
            ip netns exec "$ns" sysctl -qw "net.ipv6.conf.eth0.accept_dad=0" 2>/dev/null || true
            ;;
    esac
    case $mode in
        broadcast) ip netns exec "$ns" ip addr add "$address/24" broadcast "$broadcast" dev eth0 ;;
        nobroadcast | dual) ip netns exec "$ns" ip addr add "$address/24" dev eth0 ;;
        ipv6only) ;;
        *) echo "lan_address: unknown mode $mode" >&2; return 1 ;;
    esac
}

# The kernel's neighbour tables (ARP, IPv6 neighbour discovery) are shared by every
# namespace, and past gc_thresh3 (1,024 by default) no entry can be added: in a LAN of N
# namespaces every host learns the N - 1 others, twice with IPv6, so from about 25 hosts new
# connections fail with EHOSTUNREACH or time out, and IPv6 multicast sends fail with EINVAL.
# A real LAN has one table per machine. lan_neighbour_room HOSTS raises the thresholds for
# this run when they are too small, and lan_restore_neighbours (call it on cleanup) puts
# back what was there.
lan_saved_neighbours=""
lan_neighbour_room() {
    local hosts=$1 need current family
    need=$((hosts * hosts * 2 + 256))
    current=$(sysctl -n net.ipv4.neigh.default.gc_thresh3 2>/dev/null || echo 0)
    ((need > current)) || return 0
    [[ -n $lan_saved_neighbours ]] || lan_saved_neighbours=$(sysctl -n \
        net.ipv4.neigh.default.gc_thresh1 net.ipv4.neigh.default.gc_thresh2 net.ipv4.neigh.default.gc_thresh3 \
        net.ipv6.neigh.default.gc_thresh1 net.ipv6.neigh.default.gc_thresh2 net.ipv6.neigh.default.gc_thresh3 | tr '\n' ' ')
    for family in ipv4 ipv6; do
        sysctl -qw "net.$family.neigh.default.gc_thresh3=$need" "net.$family.neigh.default.gc_thresh2=$need" \
            "net.$family.neigh.default.gc_thresh1=$((need / 2))" || true
    done
}
lan_restore_neighbours() {
    [[ -n $lan_saved_neighbours ]] || return 0
    local values
    read -r -a values <<<"$lan_saved_neighbours"
    sysctl -qw "net.ipv4.neigh.default.gc_thresh1=${values[0]}" "net.ipv4.neigh.default.gc_thresh2=${values[1]}" \
        "net.ipv4.neigh.default.gc_thresh3=${values[2]}" "net.ipv6.neigh.default.gc_thresh1=${values[3]}" \
        "net.ipv6.neigh.default.gc_thresh2=${values[4]}" "net.ipv6.neigh.default.gc_thresh3=${values[5]}" || true
    lan_saved_neighbours=""
}

# lan_teardown: ends the caller's processes (`pids`, politely, waiting for each), deletes its
# namespaces (`namespaces`), restores the neighbour tables, and empties both arrays, so a
# script can build the next LAN.
lan_teardown() {
    local pid ns
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    lan_restore_neighbours
    pids=()
    namespaces=()
}

# lan_stop PID...: SIGTERM, then up to 10 s for clean stops (many nodes on two cores take a
# few seconds), then SIGKILL for the stragglers; reaped quietly.
lan_stop() {
    local pid alive deadline=$((SECONDS + 10))
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
    while ((SECONDS < deadline)); do
        alive=0
        for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1 && break; done
        ((alive)) || break
        sleep 0.2
    done
    for pid in "$@"; do
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
