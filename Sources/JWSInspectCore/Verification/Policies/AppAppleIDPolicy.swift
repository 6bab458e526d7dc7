/// `app-apple-id` (`--app-apple-id`): the payload's app Apple ID is the expected one; an
/// absent one fails only in Production, as Apple requires it only there.
enum AppAppleIDPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("app-apple-id", failing: .wrongApp)
    static let payloadMembers = AppIdentity.payloadMembers

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedAppAppleId else { return }
        let identity = run.identity
        if !identity.carriesAppAppleId {
            run.notes.append("app Apple ID not compared: \(run.kind.displayName) carries none")
        } else if let actual = identity.appAppleId {
            run.record(
                name, actual == expected,
                Comparison(field: identity.appAppleIdField, actual: String(actual), expected: String(expected)))
        } else if let environment = run.options.expectedEnvironment, environment != .production {
            run.notes.append(
                "app Apple ID not compared: \(identity.appAppleIdField) is absent, and Apple requires it only in Production"
            )
        } else {
            run.record(
                name, false, Comparison(field: identity.appAppleIdField, actual: nil, expected: String(expected)))
        }
    }
}

extension AppAppleIDPolicy: ReceiptExpectation {
    /// A receipt names no app Apple ID: noted, as Apple does not compare it either.
    static func decide(receipt: ReceiptEnvelope, isXcode: Bool, options: VerificationOptions) -> ExpectationOutcome {
        guard options.expectedAppAppleId != nil else { return .none }
        return .note("app Apple ID not compared: a receipt's fields name none (Apple does not compare it either)")
    }
}

extension Check.Name {
    public static let appAppleId = AppAppleIDPolicy.name
}
