/// `app-apple-id` (`--app-apple-id`): the payload's app Apple ID is the expected one; an
/// absent one fails only in Production, as Apple requires it only there.
struct AppAppleIDPolicy: ExpectationPolicy {
    static let name = Check.Name("app-apple-id", failing: .wrongApp)
    static let payloadMembers = AppIdentity.payloadMembers

    let expected: Int64
    /// The environment expected too (`--environment`), which decides whether an absent ID fails.
    let environment: Environment?

    func decide(token: DecidedToken) -> StepOutcome {
        let identity = token.identity
        if !identity.carriesAppAppleId {
            return .note("app Apple ID not compared: \(token.kind.displayName) carries none")
        } else if let actual = identity.appAppleId {
            return Self.outcome(
                actual == expected,
                Comparison(field: identity.appAppleIdField, actual: String(actual), expected: String(expected)))
        } else if let environment, environment != .production {
            return .note(
                "app Apple ID not compared: \(identity.appAppleIdField) is absent, and Apple requires it only in Production"
            )
        }
        return Self.outcome(false, Comparison(field: identity.appAppleIdField, actual: nil, expected: String(expected)))
    }

    /// A receipt names no app Apple ID: noted, as Apple does not compare it either.
    func decide(receipt: ReceiptEnvelope, isXcode: Bool) -> StepOutcome {
        .note("app Apple ID not compared: a receipt's fields name none (Apple does not compare it either)")
    }
}

extension AppAppleIDPolicy {
    /// A StoreKit 1 transaction receipt's `app-item-id` (the app Apple ID, as text), as written;
    /// noted when absent (a test purchase's may be).
    func decide(transactionReceipt receipt: TransactionReceiptEnvelope) -> StepOutcome {
        guard let actual = receipt.purchaseString("app-item-id") else {
            return .note("app Apple ID not compared: this transaction receipt has no app-item-id")
        }
        return Self.outcome(
            Exact.same(actual, String(expected)),
            Comparison(field: "app-item-id", actual: actual, expected: String(expected)))
    }
}

extension Check.Name {
    package static let appAppleId = AppAppleIDPolicy.name
}
