internal import FoundationEssentials

/// `active` (`--require-active`): the transaction or app transaction decided on grants access
/// at the access time (`Entitlement.access`).
enum ActivePolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("active", failing: .inactive)
    static let payloadMembers = Entitlement.accessKeys

    static func apply(to run: inout Run) {
        guard run.options.requireActive else { return }
        let decisive = run.subjects.first { $0.kind == .transaction || $0.kind == .appTransaction }
        let at = run.options.accessTime
        if let decisive {
            let access = Entitlement.access(kind: decisive.kind, payload: decisive.payload, at: at)
            let detail = Detail(
                label: decisive.label, access: access,
                checked: run.options.timePolicy == .signingTime ? nil : at)
            run.record(name, access.grantsAccess == true, detail)
        } else {
            let access = Entitlement.access(kind: run.kind, payload: run.jws.payload.essentials, at: at)
            run.record(name, false, access.explanation)
        }
    }

    /// What the decisive payload grants, and when access was checked (nil: now).
    struct Detail: CheckDetail {
        let label: String
        let access: Entitlement.Access
        let checked: Date?

        var text: String {
            let when = checked.map { "at \(ISO8601.string($0))" } ?? "now"
            return "\(label)\(access.explanation) (access checked \(when))"
        }
    }
}

extension ActivePolicy: ReceiptExpectation {
    /// What the receipt's in-app entries grant at the access time (`ReceiptPayload.access`).
    static func decide(receipt: ReceiptEnvelope, isXcode: Bool, options: VerificationOptions) -> ExpectationOutcome {
        guard options.requireActive else { return .none }
        let access = receipt.payload.access(at: options.accessTime)
        let when = options.timePolicy == .signingTime ? "now" : "at \(ISO8601.string(options.accessTime))"
        return .check(
            Check(name, passed: access.grantsAccess == true, "\(access.explanation) (access checked \(when))"))
    }
}

extension Check.Name {
    public static let active = ActivePolicy.name
}
