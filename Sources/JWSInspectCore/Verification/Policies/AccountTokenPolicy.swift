internal import FoundationEssentials

/// `account-token` (`--account-token`): every transaction or renewal info decided on (the
/// payload, or those nested in a notification) carries the expected `appAccountToken`.
struct AccountTokenPolicy: ExpectationPolicy {
    static let name = Check.Name("account-token", failing: .wrongApp)
    static let payloadMembers = ["appAccountToken"]

    let expected: UUID

    func decide(token: DecidedToken) -> StepOutcome {
        let carriers = token.decided.filter { $0.kind == .transaction || $0.kind == .renewalInfo }
        if carriers.isEmpty {
            return Self.outcome(false, Detail(label: "", seen: .noCarrier(token.kind), expected: expected))
        }
        let checks = carriers.map { carrier in
            let seen = carrier.payload["appAccountToken"]
            var passed = false
            if case .string(let actual)? = seen, UUID(uuidString: actual) == expected { passed = true }
            return Check(
                Self.name, passed: passed, Detail(label: carrier.label, seen: .member(seen), expected: expected))
        }
        return .several(checks: checks, notes: [])
    }

    /// A receipt carries no `appAccountToken`: noted.
    func decide(receipt: ReceiptEnvelope, isXcode: Bool) -> StepOutcome {
        .note("account token not compared: a receipt carries no appAccountToken")
    }

    /// Nor does a StoreKit 1 transaction receipt: noted.
    func decide(transactionReceipt: TransactionReceiptEnvelope) -> StepOutcome {
        .note("account token not compared: a StoreKit 1 transaction receipt carries no appAccountToken")
    }

    /// The token seen in one transaction or renewal info (or that there is none to look in),
    /// and the one expected.
    struct Detail: CheckDetail {
        enum Seen: Sendable {
            case member(JSONValue?)
            case noCarrier(PayloadKind)
        }

        let label: String
        let seen: Seen
        let expected: UUID

        var text: String {
            let wanted = expected.uuidString.lowercased()
            let field = "\(label)appAccountToken"
            switch seen {
            case .noCarrier(let kind):
                return "\(kind.displayName) carries no transaction or renewal info with an appAccountToken; "
                    + "expected \(wanted)"
            case .member(.string(let actual)?) where UUID(uuidString: actual) == expected:
                return "\(field) is \(actual)"
            case .member(.string(let actual)?):
                return "\(field) is \(actual), expected \(wanted)"
            case .member(let other?):
                return "\(field) is \(other.kindDescription), expected \(wanted)"
            case .member(nil):
                return "\(field) is absent (the purchase set none), expected \(wanted)"
            }
        }
    }
}

extension Check.Name {
    package static let accountToken = AccountTokenPolicy.name
}
