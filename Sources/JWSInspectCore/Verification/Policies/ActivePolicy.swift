internal import FoundationEssentials

/// `active` (`--require-active`): the transaction or app transaction decided on grants access
/// at the access time (`Entitlement.access`).
struct ActivePolicy: ExpectationPolicy {
    static let name = Check.Name("active", failing: .inactive)
    static let payloadMembers = Entitlement.accessKeys

    /// The access time (`VerificationOptions.accessTime`).
    let at: Date
    /// The access time when it was given (`--at`); nil when it is now.
    let fixed: Date?

    func decide(token: DecidedToken) -> StepOutcome {
        guard let decisive = token.decided.first(where: { $0.kind == .transaction || $0.kind == .appTransaction })
        else {
            let access = Entitlement.access(kind: token.kind, payload: token.payload, at: at)
            return Self.outcome(false, access.explanation)
        }
        let access = Entitlement.access(kind: decisive.kind, payload: decisive.payload, at: at)
        return Self.outcome(
            access.grantsAccess == true, Detail(label: decisive.label, access: access, checked: fixed))
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

extension ActivePolicy {
    /// What the receipt's in-app entries grant at the access time (`ReceiptPayload.access`).
    func decide(receipt: ReceiptEnvelope, isXcode: Bool) -> StepOutcome {
        let access = receipt.payload.access(at: at)
        return Self.outcome(access.grantsAccess == true, Detail(label: "", access: access, checked: fixed))
    }
}

extension Check.Name {
    public static let active = ActivePolicy.name
}
