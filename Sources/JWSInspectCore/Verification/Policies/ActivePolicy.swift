internal import FoundationEssentials

/// `active` (`--require-active`): the one entitlement model (`Entitlement.decide`) grants
/// access at the access time.
struct ActivePolicy: ExpectationPolicy {
    static let name = Check.Name("active", failing: .inactive)
    static let payloadMembers = Entitlement.accessKeys

    /// The access time (`VerificationOptions.accessTime`).
    let at: Date
    /// The access time when it was given (`--access-at`); nil when it is now.
    let fixed: Date?
    /// What the decision reads beside the token (`VerificationOptions.accessContext`).
    let context: Entitlement.Context

    func decide(token: DecidedToken) -> StepOutcome {
        let nested =
            token.kind == .notification
            ? token.decided.compactMap { item in item.path.map { ($0, item.kind, item.payload) } } : []
        let facts = Entitlement.Facts.of(kind: token.kind, payload: token.payload, nested: nested).with(context)
        let access = Entitlement.decide(facts, at: at)
        let label = facts.path == "payload" ? "" : facts.path + " "
        return Self.outcome(access.grantsAccess == true, Detail(label: label, access: access, checked: fixed))
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

extension ActivePolicy {
    /// A StoreKit 1 transaction receipt proves no access (`Entitlement.decide`): fails.
    func decide(transactionReceipt receipt: TransactionReceiptEnvelope) -> StepOutcome {
        let access = Entitlement.decide(
            Entitlement.Facts(kind: .transactionReceipt, payload: receipt.payload.essentials), at: at)
        return Self.outcome(access.grantsAccess == true, Detail(label: "", access: access, checked: fixed))
    }
}

extension ActivePolicy {
    /// A realtime response proves no purchase (`Entitlement.decide`): fails.
    func decide(realtimeResponse response: RealtimeResponseEnvelope) -> StepOutcome {
        let access = Entitlement.decide(Entitlement.Facts(kind: .realtimeResponse, payload: response.body), at: at)
        return Self.outcome(access.grantsAccess == true, Detail(label: "", access: access, checked: fixed))
    }
}

extension Check.Name {
    package static let active = ActivePolicy.name
}
