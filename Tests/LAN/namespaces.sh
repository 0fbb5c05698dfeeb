# Sourced by Tests/LAN/lan-test.sh and Bench/lan-group.sh: a LAN made of network namespaces.
# lan_create TAG SUBNET HOSTS makes a bridge in its own namespace (TAGbr) and HOSTS hosts
# (TAGh1 … TAGhN) joined to it by veth pairs, host i at SUBNET.i/24 with the broadcast
# address SUBNET.255 on its eth0; every namespace made is appended to the caller's
# `namespaces` array, for its cleanup. Returns 1, having made nothing, where namespaces
# cannot be created (no root or no iproute2).
lan_create() {
    local tag=$1 subnet=$2 hosts=$3 i ns
    ip netns add "${tag}br" 2>/dev/null || return 1
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
        ip netns exec "$ns" ip addr add "$subnet.$i/24" broadcast "$subnet.255" dev eth0
        ip netns exec "$ns" ip link set eth0 up
        ip netns exec "${tag}br" ip link set "p$i$tag" master br0
        ip netns exec "${tag}br" ip link set "p$i$tag" up
    done
}
