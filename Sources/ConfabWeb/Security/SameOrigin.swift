#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The browser's own attacks, decided from headers alone (docs/web.md, "Safe by default").
///
/// DNS rebinding: a page on a name the attacker controls, later resolved to 127.0.0.1,
/// reaches the app with that name in `Host`. Rebinding needs a name, so a `Host` that is an
/// IP address, or `localhost`, is this machine's app; any other name is refused.
///
/// Cross-site requests and WebSockets: a browser names the page that made a request in
/// `Origin` (always on a POST and a WebSocket upgrade) and says in `Sec-Fetch-Site` whether
/// it is another site. A state-changing request or an upgrade passes only from this app's
/// own origin; one with neither header comes from no browser (a script holding the cookie).
enum SameOrigin {
    /// Whether a `Host` header (with or without its port) names this app.
    static func allowsHost(_ header: String) -> Bool {
        guard let host = hostPart(header) else { return false }
        return host == "localhost" || isAddressLiteral(host)
    }

    /// Whether a request that changes something, or asks to become a WebSocket, comes from
    /// the app's own pages (or from no browser at all).
    static func allowsChange(origin: String?, fetchSite: String?, host: String) -> Bool {
        if let fetchSite, fetchSite != "same-origin", fetchSite != "none" { return false }
        guard let origin else { return true }
        // The pages' `Referrer-Policy: no-referrer` makes a browser send `Origin: null` with
        // a form they post (the sign-in and first-run forms); `Sec-Fetch-Site`, which no page
        // can set, still says the form was this app's. A `null` without it is refused.
        if origin == "null", fetchSite == "same-origin" { return true }
        return origin == "http://" + host
    }

    /// The host of `Host`: `[::1]:7462` → `::1`, `localhost:7462` → `localhost`; nil when
    /// malformed.
    static func hostPart(_ header: String) -> String? {
        let value = header.lowercased()
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let rest = value[value.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && UInt16(rest.dropFirst()) != nil) else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return parts[0].isEmpty ? nil : String(parts[0])
        case 2: return parts[0].isEmpty || UInt16(parts[1]) == nil ? nil : String(parts[0])
        default: return nil
        }
    }

    /// An IPv4 address in dotted decimal or an IPv6 address, as `inet_pton` reads them.
    static func isAddressLiteral(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, host, &buffer) == 1 { return true }
        return inet_pton(AF_INET6, host, &buffer) == 1
    }
}
