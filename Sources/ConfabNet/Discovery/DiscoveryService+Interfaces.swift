import NIOCore

/// Following the machine's interfaces: a new plan when they change, the IPv6 group joined
/// where it is needed.
extension DiscoveryService {
    /// Reads the interfaces again; on a change, beacons go to the new plan at once.
    func checkInterfaces() {
        let interfaces = NetworkInterface.current()
        guard
            let plan = current.withLockedValue({ current -> BeaconPlan? in
                guard interfaces != current.interfaces else { return nil }
                current.interfaces = interfaces
                let plan = BeaconPlan.make(interfaces: interfaces, port: configuration.port)
                guard plan != current.plan else { return nil }
                current.plan = plan
                return plan
            })
        else { return }
        configuration.logger.info(
            "network changed: beacons now to \(plan.targets.isEmpty ? "nowhere" : plan.targets.map(\.description).joined(separator: ", "))",
            metadata: plan.skipped.isEmpty
                ? [:] : ["skipped": "\(plan.skipped.map(\.description).joined(separator: "; "))"])
        let sockets: [Slot: any Channel] = state.withLockedValue { state in
            if case .running(let running) = state { return running.sockets }
            return [:]
        }
        if let v4 = sockets[Slot(family: .inet, sends: true)] {
            update(v4, targets: plan.addresses.filter { $0.protocol == .inet })
        }
        if let receiver = sockets[Slot(family: .inet6, sends: false)] {
            let sender = sockets[Slot(family: .inet6, sends: true)]
            Task { [self] in
                await join(plan, on: receiver)
                if let sender { update(sender, targets: plan.addresses.filter { $0.protocol == .inet6 }) }
            }
        }
        onPlanChange(plan)
    }

    private func update(_ channel: any Channel, targets: [SocketAddress]) {
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.handler(type: BeaconAnnouncer.self).update(targets: targets)
        }
    }

    /// Joins the IPv6 group on every interface of the plan not joined yet, so beacons sent
    /// to it there are received; interfaces that left the plan are forgotten (the kernel
    /// drops a vanished interface's memberships itself).
    func join(_ plan: BeaconPlan, on channel: any Channel) async {
        guard let multicast = channel as? any MulticastChannel else { return }
        let wanted = Set(plan.targets.filter { $0.kind == .multicast }.map(\.interfaceIndex))
        let joined = current.withLockedValue { $0.joined }
        let devices = (try? System.enumerateDevices()) ?? []
        var nowJoined = joined.intersection(wanted)
        for index in wanted.subtracting(joined) {
            guard let device = devices.first(where: { $0.interfaceIndex == Int(index) }),
                let group = try? SocketAddress(ipAddress: BeaconPlan.ipv6Group, port: configuration.port)
            else { continue }
            do {
                try await multicast.joinGroup(group, device: device).get()
                nowJoined.insert(index)
            } catch {
                configuration.logger.info(
                    "could not join the IPv6 beacon group on \(device.name): \(error)")
            }
        }
        for index in joined.subtracting(wanted) {
            guard let device = devices.first(where: { $0.interfaceIndex == Int(index) }),
                let group = try? SocketAddress(ipAddress: BeaconPlan.ipv6Group, port: configuration.port)
            else { continue }
            try? await multicast.leaveGroup(group, device: device).get()
        }
        current.withLockedValue { $0.joined = nowJoined }
    }
}
