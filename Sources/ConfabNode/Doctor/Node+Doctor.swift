import ConfabClient

extension Node {
    /// `confab doctor`, run by the node with the options it runs with.
    public nonisolated func doctor(seconds: Double) async throws -> DoctorSummary {
        var doctor = DoctorOptions(
            network: NetworkKeySetting(key: options.networkKey, source: options.networkKeySource))
        doctor.listenHost = options.listenHost
        doctor.listenPort = options.listenPort
        doctor.discoveryPort = options.discoveryPort
        doctor.beaconTargets = options.beaconTargets
        doctor.staticPeers = options.staticPeers
        doctor.seconds = seconds
        let report = try await Doctor.run(profile: local, options: doctor)
        return DoctorSummary(
            ok: report.ok,
            findings: report.findings.map {
                DoctorSummary.Finding(
                    code: $0.code, severity: $0.severity.rawValue, message: $0.message, advice: $0.advice)
            },
            networkTag: doctor.network.tag, elapsed: report.elapsed)
    }
}
