internal import FoundationEssentials

/// `account-token` (`--account-token`): every transaction or renewal info decided on (the
/// payload, or those nested in a notification) carries the expected `appAccountToken`.
enum AccountTokenPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("account-token", failing: .wrongApp)
    static let payloadMembers = ["appAccountToken"]

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedAccountToken else { return }
        let carriers = run.subjects.filter { $0.kind == .transaction || $0.kind == .renewalInfo }
        if carriers.isEmpty {
            run.record(name, false, Detail(label: "", seen: .noCarrier(run.kind), expected: expected))
        }
        for subject in carriers {
            let seen = subject.payload["appAccountToken"]
            var passed = false
            if case .string(let actual)? = seen, UUID(uuidString: actual) == expected { passed = true }
            run.record(name, passed, Detail(label: subject.label, seen: .member(seen), expected: expected))
        }
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

extension AccountTokenPolicy: ReceiptExpectation {
    /// A receipt carries no `appAccountToken`: noted.
    static func decide(receipt: ReceiptEnvelope, isXcode: Bool, options: VerificationOptions) -> ExpectationOutcome {
        guard options.expectedAccountToken != nil else { return .none }
        return .note("account token not compared: a receipt carries no appAccountToken")
    }
}

extension Check.Name {
    public static let accountToken = AccountTokenPolicy.name
}
