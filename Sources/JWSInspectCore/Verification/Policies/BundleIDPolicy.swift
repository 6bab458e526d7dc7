/// `bundle-id` (`--bundle-id`): the payload's bundle ID is the expected one; kinds that carry
/// none are noted, not compared (as Apple does).
struct BundleIDPolicy: ExpectationPolicy {
    static let name = Check.Name("bundle-id", failing: .wrongApp)
    static let payloadMembers = AppIdentity.payloadMembers

    let expected: String

    func decide(token: DecidedToken) -> StepOutcome {
        let identity = token.identity
        if !identity.carriesBundleId {
            return .note(
                "bundle ID not compared: \(token.kind.displayName) carries none (Apple does not compare it either)")
        }
        let comparison = Comparison(
            field: identity.bundleIdField, actual: identity.bundleId, expected: expected, quoted: true)
        return Self.outcome(Exact.same(identity.bundleId, expected), comparison)
    }

    /// A receipt's `bundle_id` (field 2).
    func decide(receipt: ReceiptEnvelope, isXcode: Bool) -> StepOutcome {
        let actual = receipt.payload.bundleID
        return Self.outcome(
            Exact.same(actual, expected),
            Comparison(field: "bundle_id", actual: actual, expected: expected, quoted: true))
    }
}

extension BundleIDPolicy {
    /// A realtime response names no app; its offer's signature does (a V2 token's `bid`,
    /// compared in the nested token; the bundle ID a V1 signature signs).
    func decide(realtimeResponse: RealtimeResponseEnvelope) -> StepOutcome {
        .note("bundle ID: a realtime response names none; its offer signature is checked with it, if it has one")
    }
}

extension BundleIDPolicy {
    /// A StoreKit 1 transaction receipt's `bid`, as written (nothing in it is proven).
    func decide(transactionReceipt receipt: TransactionReceiptEnvelope) -> StepOutcome {
        let actual = receipt.purchaseString("bid")
        return Self.outcome(
            Exact.same(actual, expected), Comparison(field: "bid", actual: actual, expected: expected, quoted: true))
    }
}

extension Check.Name {
    package static let bundleId = BundleIDPolicy.name
}
