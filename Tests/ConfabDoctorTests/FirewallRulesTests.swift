import ConfabClient
import Testing

@testable import ConfabNode

/// Which packet-filter rules the doctor reports as standing in discovery's way.
@Suite("Doctor: firewall rules") struct FirewallRulesTests {
    @Test func nftRulesNamingThePortOrDroppingUDPAreKeptWithTheirPlace() {
        let ruleset = """
            table inet filter {
            \tchain input {
            \t\ttype filter hook input priority filter; policy accept;
            \t\tct state established,related accept
            \t\tudp dport 7460 counter packets 12 bytes 1800 drop
            \t\ttcp dport 22 accept
            \t\tmeta l4proto udp reject
            \t\tudp dport { 53, 7460 } accept
            \t\tudp dport 7000-8000 log
            \t}
            }
            table ip nat {
            \tchain postrouting {
            \t\ttype nat hook postrouting priority srcnat; policy accept;
            \t\tmasquerade
            \t}
            }
            """
        #expect(
            FirewallRules.relevantNftRules(ruleset, port: 7460) == [
                "nft inet filter input: udp dport 7460 drop",
                "nft inet filter input: meta l4proto udp reject",
                "nft inet filter input: udp dport { 53, 7460 } accept",
                "nft inet filter input: udp dport 7000-8000 log",
            ])
        #expect(
            FirewallRules.relevantNftRules(ruleset, port: 9999) == ["nft inet filter input: meta l4proto udp reject"])
    }

    @Test func anInputPolicyOfDropIsReported() {
        let ruleset = """
            table inet filter {
            \tchain input {
            \t\ttype filter hook input priority filter; policy drop;
            \t\ttcp dport 22 accept
            \t}
            }
            """
        #expect(
            FirewallRules.relevantNftRules(ruleset, port: 7460) == [
                "nft inet filter input: policy drop (everything not accepted before is dropped)"
            ])
    }

    @Test func iptablesRulesAreKeptAsWritten() {
        let rules = """
            -P INPUT ACCEPT
            -P FORWARD DROP
            -A INPUT -p udp -m udp --dport 7460 -j DROP
            -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
            -A INPUT -p udp -m multiport --dports 53,7000:8000 -j ACCEPT
            """
        #expect(
            FirewallRules.relevantIptablesRules(rules, port: 7460, tool: "iptables") == [
                "iptables: -A INPUT -p udp -m udp --dport 7460 -j DROP",
                "iptables: -A INPUT -p udp -m multiport --dports 53,7000:8000 -j ACCEPT",
            ])
        #expect(
            FirewallRules.relevantIptablesRules("-P INPUT DROP\n", port: 7460, tool: "ip6tables") == [
                "ip6tables: -P INPUT DROP (everything not accepted before is dropped)"
            ])
    }

    @Test func anEmptyRulesetHasNothingInTheWay() {
        #expect(FirewallRules.relevantNftRules("", port: 7460).isEmpty)
        #expect(
            FirewallRules.relevantIptablesRules("-P INPUT ACCEPT\n-P OUTPUT ACCEPT\n", port: 7460, tool: "iptables")
                .isEmpty)
    }
}
